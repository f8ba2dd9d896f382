import type { Page, Suppression, SuppressionList, SuppressionRepository } from '@mailcast/core';
import type { SuppressionReason, SuppressionScope } from '@mailcast/domain';
import type { Knex } from 'knex';
import { likeLiteral } from './subscriber-list';

interface SuppressionRow {
  id: number;
  channel_id: number | null;
  email: string;
  reason: SuppressionReason;
  created_at: Date;
}

const toSuppression = (row: SuppressionRow): Suppression => ({
  id: Number(row.id),
  channelId: row.channel_id === null ? null : Number(row.channel_id),
  email: row.email,
  reason: row.reason,
  createdAt: row.created_at,
});

/**
 * Channel lists and the global list (channel_id NULL) in one table; the unique key treats NULLs
 * as equal, so each address is on each list at most once and every add is one upsert.
 */
export class PgSuppressionRepository implements SuppressionRepository {
  constructor(private readonly db: Knex) {}

  private onList(list: SuppressionList) {
    return (q: Knex.QueryBuilder) => (list === null ? q.whereNull('channel_id') : q.where('channel_id', list));
  }

  async add(list: SuppressionList, email: string, reason: SuppressionReason, now: Date): Promise<{ suppression: Suppression; created: boolean }> {
    const { rows } = await this.db.raw<{ rows: Array<SuppressionRow & { created: boolean }> }>(
      `WITH inserted AS (
         INSERT INTO suppressions (channel_id, email, reason, created_at) VALUES (:list, :email, :reason, :now)
         ON CONFLICT ON CONSTRAINT suppressions_unique DO NOTHING
         RETURNING *, true AS created
       )
       SELECT * FROM inserted
       UNION ALL
       SELECT *, false AS created FROM suppressions
        WHERE email = :email AND channel_id IS NOT DISTINCT FROM :list::bigint AND NOT EXISTS (SELECT 1 FROM inserted)`,
      { list, email, reason, now },
    );
    const row = rows[0];
    if (row === undefined) {
      // Removed by a concurrent request between the conflict and the read: add it again.
      return this.add(list, email, reason, now);
    }
    return { suppression: toSuppression(row), created: row.created };
  }

  async addMany(list: SuppressionList, emails: readonly string[], reason: SuppressionReason, now: Date): Promise<number> {
    if (emails.length === 0) return 0;
    const { rows } = await this.db.raw<{ rows: { added: string }[] }>(
      `WITH inserted AS (
         INSERT INTO suppressions (channel_id, email, reason, created_at)
         SELECT :list, e, :reason, :now FROM unnest(CAST(:emails AS text[])) AS e
         ON CONFLICT ON CONSTRAINT suppressions_unique DO NOTHING
         RETURNING 1
       )
       SELECT count(*) AS added FROM inserted`,
      { list, reason, now, emails: [...emails] },
    );
    return Number(rows[0]?.added ?? 0);
  }

  async remove(list: SuppressionList, email: string): Promise<boolean> {
    const removed = await this.db('suppressions').modify(this.onList(list)).where({ email }).delete();
    return removed > 0;
  }

  async removeMany(list: SuppressionList, emails: readonly string[]): Promise<number> {
    if (emails.length === 0) return 0;
    return this.db('suppressions')
      .modify(this.onList(list))
      .whereIn('email', [...emails])
      .delete();
  }

  async list(list: SuppressionList, filter: { emailContains?: string }, page: Page): Promise<{ items: Suppression[]; total: number }> {
    const base = () => {
      const q = this.db('suppressions').modify(this.onList(list));
      if (filter.emailContains !== undefined) q.whereRaw('email LIKE ?', [`%${likeLiteral(filter.emailContains.toLowerCase())}%`]);
      return q;
    };
    const [rows, count] = await Promise.all([
      base()
        .select('*')
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      base().count<{ count: string }[]>({ count: '*' }),
    ]);
    return { items: (rows as SuppressionRow[]).map(toSuppression), total: Number(count[0]?.count ?? 0) };
  }

  async find(channelId: number, email: string): Promise<(Suppression & { scope: SuppressionScope }) | null> {
    const row = (await this.db('suppressions')
      .where({ email })
      .andWhere((q) => q.where('channel_id', channelId).orWhereNull('channel_id'))
      // The channel's own entry first: it says more about this channel's sending.
      .orderByRaw('channel_id IS NULL')
      .first()) as SuppressionRow | undefined;
    if (row === undefined) return null;
    return { ...toSuppression(row), scope: row.channel_id === null ? 'global' : 'channel' };
  }
}
