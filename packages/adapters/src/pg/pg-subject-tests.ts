import type { SubjectTestStore } from '@mailcast/core';
import type { VariantFigures } from '@mailcast/domain';
import type { Knex } from 'knex';

/** Held recipients wait on the column a retry waits on, forever until released (docs/subject-tests.md). */
const HELD = `'infinity'::timestamptz`;

export class PgSubjectTestStore implements SubjectTestStore {
  constructor(private readonly db: Knex) {}

  async countPending(broadcastId: number): Promise<number> {
    const row = await this.db('broadcast_recipients').where({ broadcast_id: broadcastId, status: 'pending' }).count<{ n: string }[]>({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async draw(broadcastId: number, variants: number, perVariant: number): Promise<number | null> {
    // One statement: the sample's parts and the held rest together, or nothing. random() orders
    // the pending rows once; the first perVariant * variants, dealt round-robin, are the sample.
    const { rows } = await this.db.raw<{ rows: Array<{ drawn: boolean; held: string }> }>(
      `WITH fresh AS (
         SELECT NOT EXISTS (SELECT 1 FROM broadcast_recipients WHERE broadcast_id = :broadcastId AND ab_variant IS NOT NULL) AS ok
       ), shuffled AS (
         SELECT r.id, row_number() OVER (ORDER BY random()) - 1 AS n
           FROM broadcast_recipients r, fresh
          WHERE fresh.ok AND r.broadcast_id = :broadcastId AND r.status = 'pending'
       ), moved AS (
         UPDATE broadcast_recipients r
            SET ab_variant = CASE WHEN s.n < :sample THEN (s.n % :variants)::smallint END,
                next_attempt_at = CASE WHEN s.n < :sample THEN r.next_attempt_at ELSE ${HELD} END
           FROM shuffled s
          WHERE r.id = s.id
         RETURNING r.ab_variant
       )
       SELECT (SELECT ok FROM fresh) AS drawn, count(*) FILTER (WHERE ab_variant IS NULL) AS held FROM moved`,
      { broadcastId, variants, sample: variants * perVariant },
    );
    const row = rows[0]!;
    return row.drawn ? Number(row.held) : null;
  }

  async setDecideAt(broadcastId: number, at: Date): Promise<void> {
    await this.db('broadcasts').where({ id: broadcastId }).whereNull('ab_decide_at').update({ ab_decide_at: at });
  }

  async decideAt(broadcastId: number): Promise<Date | null> {
    const row = await this.db('broadcasts').where({ id: broadcastId }).first<{ ab_decide_at: Date | null } | undefined>('ab_decide_at');
    return row?.ab_decide_at ?? null;
  }

  async figures(broadcastId: number, variants: number): Promise<VariantFigures[]> {
    // The sample's rows through their partial index; a human open or click is the recipient's
    // human first (docs/engagement.md), kept by the statement that records the event.
    const { rows } = await this.db.raw<{ rows: Array<{ variant: number; sent: string; human_opens: string; human_clicks: string }> }>(
      `SELECT r.ab_variant AS variant,
              count(*) FILTER (WHERE r.status = 'sent') AS sent,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM email_event_firsts f WHERE f.recipient_id = r.id AND f.kind = 'human_opened' AND f.link_id = 0)) AS human_opens,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM email_event_firsts f WHERE f.recipient_id = r.id AND f.kind = 'human_clicked' AND f.link_id = 0)) AS human_clicks
         FROM broadcast_recipients r
        WHERE r.broadcast_id = ? AND r.ab_variant IS NOT NULL
        GROUP BY r.ab_variant`,
      [broadcastId],
    );
    const byVariant = new Map(rows.map((r) => [Number(r.variant), r]));
    return Array.from({ length: variants }, (_, i) => {
      const r = byVariant.get(i);
      return { sent: Number(r?.sent ?? 0), human_opens: Number(r?.human_opens ?? 0), human_clicks: Number(r?.human_clicks ?? 0) };
    });
  }

  async recordWinner(broadcastId: number, winner: number, at: Date): Promise<boolean> {
    const changed = await this.db('broadcasts')
      .where({ id: broadcastId })
      .whereNull('ab_decided_at')
      .update({ ab_winner: winner, ab_decided_at: at, updated_at: at });
    return changed === 1;
  }

  async releaseHeld(broadcastId: number): Promise<number> {
    return this.db('broadcast_recipients')
      .where({ broadcast_id: broadcastId, status: 'pending' })
      .whereRaw(`next_attempt_at = ${HELD}`)
      .update({ next_attempt_at: null });
  }
}
