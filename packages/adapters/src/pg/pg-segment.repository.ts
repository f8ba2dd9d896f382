import {
  segmentTooSlow,
  ValidationError,
  type NewSegment,
  type Page,
  type Segment,
  type SegmentChanges,
  type SegmentRepository,
  type Subscriber,
} from '@mailcast/core';
import { parseSegmentDefinition, presentSegmentRule, type BroadcastStatus, type SegmentDefinition } from '@mailcast/domain';
import type { Knex } from 'knex';
import { ChannelGate } from './channel-gate';
import { audienceChanges, CountCache } from './count-cache';
import { segmentPredicate } from './segment-sql';
import { toSubscriber, type SubscriberRow } from './pg-subscriber.repository';

interface SegmentRow {
  id: number;
  channel_id: number;
  name: string;
  description: string | null;
  match: string;
  rules: unknown;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'channel_id', 'name', 'description', 'match', 'rules', 'created_at', 'updated_at'];

/** Rules are stored in the API's own shape and read back through the same validation. */
function toSegment(row: SegmentRow): Segment {
  const parsed = parseSegmentDefinition(row.match, row.rules);
  if ('errors' in parsed) throw new Error(`segment ${row.id} holds rules that cannot be evaluated: ${JSON.stringify(parsed.errors)}`);
  return {
    id: Number(row.id),
    channelId: Number(row.channel_id),
    name: row.name,
    description: row.description,
    definition: parsed.definition,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const storedRules = (definition: SegmentDefinition) => JSON.stringify(definition.rules.map(presentSegmentRule));

/** How long a segment's count is kept, and up to which count it is always counted again (docs/segments.md). */
export const SEGMENT_COUNT_TTL_MS = 30_000;
export const SEGMENT_COUNT_ALWAYS_EXACT_UP_TO = 1000;

/** How long one segment query may run, and how many of one channel run at once in a process (docs/segments.md, "Bounds"). */
export const DEFAULT_SEGMENT_TIMEOUT_MS = 5_000;
export const SEGMENT_QUERIES_PER_CHANNEL = 2;

/** PostgreSQL's query_canceled: a statement time-out, or pg_cancel_backend. */
const QUERY_CANCELED = '57014';

export class PgSegmentRepository implements SegmentRepository {
  private readonly gate = new ChannelGate(SEGMENT_QUERIES_PER_CHANNEL);
  private readonly sharedCounts = new Map<string, { stop: AbortController; waiting: number }>();

  constructor(
    private readonly db: Knex,
    private readonly counts = new CountCache(SEGMENT_COUNT_TTL_MS, undefined, undefined, audienceChanges(db)),
    private readonly timeoutMs = DEFAULT_SEGMENT_TIMEOUT_MS,
  ) {}

  async create(segment: NewSegment, now: Date): Promise<Segment> {
    const [row] = await this.db('segments')
      .insert({
        channel_id: segment.channelId,
        name: segment.name,
        description: segment.description,
        match: segment.definition.match,
        rules: storedRules(segment.definition),
        created_at: now,
        updated_at: now,
      })
      .returning(COLUMNS);
    return toSegment(row as SegmentRow);
  }

  async findById(channelId: number, id: number): Promise<Segment | null> {
    const row = (await this.db('segments').where({ channel_id: channelId, id }).first(COLUMNS)) as SegmentRow | undefined;
    return row ? toSegment(row) : null;
  }

  async findMany(channelId: number, ids: readonly number[]): Promise<Segment[]> {
    if (ids.length === 0) return [];
    const rows = (await this.db('segments')
      .where({ channel_id: channelId })
      .whereIn('id', [...ids])
      .orderBy('id')
      .select(COLUMNS)) as SegmentRow[];
    return rows.map(toSegment);
  }

  async list(channelId: number, page: Page): Promise<{ items: Segment[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db('segments')
        .where({ channel_id: channelId })
        .select(COLUMNS)
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      this.db('segments').where({ channel_id: channelId }).count<{ count: number }[]>({ count: '*' }).first(),
    ]);
    return { items: (rows as SegmentRow[]).map(toSegment), total: Number(count?.count ?? 0) };
  }

  async update(channelId: number, id: number, changes: SegmentChanges, now: Date): Promise<Segment | null> {
    const patch: Record<string, unknown> = { updated_at: now };
    if (changes.name !== undefined) patch.name = changes.name;
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.definition !== undefined) {
      patch.match = changes.definition.match;
      patch.rules = storedRules(changes.definition);
    }
    const [row] = await this.db('segments').where({ channel_id: channelId, id }).update(patch).returning(COLUMNS);
    return row ? toSegment(row as SegmentRow) : null;
  }

  async delete(channelId: number, id: number, blockingStatuses: readonly BroadcastStatus[]): Promise<'deleted' | 'not_found' | 'targeted' | 'in_sequence'> {
    // One statement: a broadcast scheduled or a sequence pointed at it between a check and the
    // delete cannot slip through.
    const { rows } = await this.db.raw<{ rows: Array<{ deleted: boolean; targeted: boolean; in_sequence: boolean }> }>(
      `WITH target AS (SELECT id FROM segments WHERE channel_id = :channelId AND id = :id),
            blocking AS (SELECT 1 FROM broadcasts WHERE channel_id = :channelId AND (:id = ANY(segment_ids) OR :id = ANY(excluded_segment_ids)) AND status = ANY(:statuses)),
            sequenced AS (SELECT 1 FROM sequences WHERE channel_id = :channelId AND (init_segment_id = :id OR :id = ANY(excluded_segment_ids))),
            deleted AS (DELETE FROM segments WHERE id IN (SELECT id FROM target) AND NOT EXISTS (SELECT 1 FROM blocking)
                          AND NOT EXISTS (SELECT 1 FROM sequenced) RETURNING id)
       SELECT EXISTS (SELECT 1 FROM deleted) AS deleted, EXISTS (SELECT 1 FROM target) AND EXISTS (SELECT 1 FROM blocking) AS targeted,
              EXISTS (SELECT 1 FROM target) AND EXISTS (SELECT 1 FROM sequenced) AS in_sequence`,
      { channelId, id, statuses: this.db.raw('?::text[]', [[...blockingStatuses]]) },
    );
    const row = rows[0]!;
    return row.deleted ? 'deleted' : row.targeted ? 'targeted' : row.in_sequence ? 'in_sequence' : 'not_found';
  }

  /**
   * Exact, and for a count above SEGMENT_COUNT_ALWAYS_EXACT_UP_TO kept per channel and rule set
   * until the audience changes, for at most SEGMENT_COUNT_TTL_MS (docs/segments.md,
   * "subscribers_count"): the same rules share it whichever segment holds them.
   */
  async countMembers(channelId: number, definition: SegmentDefinition, now: Date, signal?: AbortSignal): Promise<number> {
    const key = JSON.stringify([channelId, definition]);
    // A count still running is shared by every request that asks for it meanwhile, so it is
    // stopped only once all of them have gone; each one that goes stops waiting at once.
    const count = () => {
      const shared = { stop: new AbortController(), waiting: 0 };
      this.sharedCounts.set(key, shared);
      return this.countNow(channelId, definition, now, shared.stop.signal).finally(() => this.sharedCounts.delete(key));
    };
    const value = (await this.counts.current()).get(key, count, SEGMENT_COUNT_ALWAYS_EXACT_UP_TO);
    const shared = this.sharedCounts.get(key);
    if (shared === undefined || signal === undefined) return value;
    shared.waiting += 1;
    return new Promise<number>((resolve, reject) => {
      const leave = () => {
        if (--shared.waiting === 0) shared.stop.abort(signal.reason);
        reject(signal.reason as Error);
      };
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      value.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
    });
  }

  /** The members counted by the database now, never kept. */
  async countNow(channelId: number, definition: SegmentDefinition, now: Date, signal?: AbortSignal): Promise<number> {
    const where = segmentPredicate(definition, channelId, now);
    const rows = await this.evaluate<{ count: string }>(
      channelId,
      signal,
      `SELECT count(*) AS count FROM subscribers s WHERE s.channel_id = ? AND s.redacted_at IS NULL AND (${where.sql})`,
      [channelId, ...where.bindings],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async members(channelId: number, definition: SegmentDefinition, now: Date, page: Page, signal?: AbortSignal): Promise<Subscriber[]> {
    const where = segmentPredicate(definition, channelId, now);
    const rows = await this.evaluate<SubscriberRow>(
      channelId,
      signal,
      `SELECT s.* FROM subscribers s WHERE s.channel_id = ? AND s.redacted_at IS NULL AND (${where.sql})
        ORDER BY s.id LIMIT ? OFFSET ?`,
      [channelId, ...where.bindings, page.limit, page.offset],
    );
    return rows.map(toSubscriber);
  }

  /**
   * One segment query, bounded (docs/segments.md, "Bounds"): it waits its channel's turn without
   * a connection, runs under a statement time-out set for its transaction alone, and is
   * cancelled in PostgreSQL when `signal` aborts, so a client that went away leaves no work behind.
   */
  private evaluate<R>(channelId: number, signal: AbortSignal | undefined, sql: string, bindings: readonly Knex.Value[]): Promise<R[]> {
    return this.gate.run(channelId, signal, () =>
      this.db.transaction(async (trx) => {
        const {
          rows: [session],
        } = await trx.raw<{ rows: Array<{ pid: number }> }>(`SELECT set_config('statement_timeout', ?, true), pg_backend_pid() AS pid`, [
          String(this.timeoutMs),
        ]);
        // The connection is kept until a cancel sent for it has been delivered, so it can never
        // reach a query that the pool has since given the connection to.
        let cancelling: Promise<unknown> | undefined;
        const cancel = () => (cancelling = this.db.raw('SELECT pg_cancel_backend(?)', [session!.pid]).catch(() => undefined));
        signal?.addEventListener('abort', cancel, { once: true });
        try {
          signal?.throwIfAborted();
          return (await trx.raw<{ rows: R[] }>(sql, bindings)).rows;
        } catch (error) {
          if ((error as { code?: string }).code === QUERY_CANCELED && signal?.aborted !== true) throw new ValidationError(segmentTooSlow(this.timeoutMs));
          throw error;
        } finally {
          signal?.removeEventListener('abort', cancel);
          await cancelling;
        }
      }),
    );
  }
}
