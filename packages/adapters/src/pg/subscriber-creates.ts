import type { Knex } from 'knex';
import { prepared } from './database';

/** An outbox event of a create, as the statements write it (`subscriber_id` is joined in by PostgreSQL). */
export interface PendingEvent {
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** Every column an insert of a new subscriber writes, and the events of the row it makes. */
export interface CreateRow {
  channel_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  ip_address: string | null;
  source: string;
  subscribed_at: Date;
  requires_confirmation: boolean;
  is_active: boolean;
  tags: string[];
  custom_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

interface Pending<Row> {
  row: CreateRow;
  events: PendingEvent[];
  resolve(row: Row | null): void;
  reject(error: unknown): void;
}

/** Rows one statement inserts at most: a batch's JSON stays near 100 KB. */
const MAX_BATCH = 100;

/**
 * One statement for a batch: the rows arrive as one JSON array, so the text never varies and is
 * prepared once per connection. The rows are inserted in (channel, address) order, so two batches
 * that share addresses take their locks in the same order and never deadlock; an address that
 * exists is skipped (ON CONFLICT DO NOTHING) and its events with it. Within a batch every
 * (channel, address) is unique (the caller keeps repeats for the next batch), so joining the
 * inserted rows back to the input on it is exact.
 */
const BATCH_STATEMENT = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS r(
    n int, channel_id bigint, email text, first_name text, last_name text, ip_address text, source text,
    subscribed_at timestamptz, requires_confirmation boolean, is_active boolean, tags text[], custom_data jsonb,
    created_at timestamptz, updated_at timestamptz, events jsonb)
),
s AS (
  INSERT INTO subscribers (channel_id, email, first_name, last_name, ip_address, source, subscribed_at,
                           requires_confirmation, is_active, tags, custom_data, created_at, updated_at)
  SELECT channel_id, email, first_name, last_name, ip_address, source, subscribed_at,
         requires_confirmation, is_active, tags, custom_data, created_at, updated_at
    FROM input ORDER BY channel_id, email
  ON CONFLICT (channel_id, email) DO NOTHING
  RETURNING *
),
e AS (
  INSERT INTO events (channel_id, type, data, created_at)
  SELECT s.channel_id, ev.type, ev.data || jsonb_build_object('subscriber_id', s.id), ev.created_at
    FROM s JOIN input i ON i.channel_id = s.channel_id AND i.email = s.email,
         ROWS FROM (jsonb_to_recordset(i.events) AS (type text, data jsonb, created_at timestamptz)) WITH ORDINALITY AS ev(type, data, created_at, k)
   ORDER BY i.n, ev.k
)
SELECT * FROM s`;

/**
 * Subscriber creates that reach the repository in the same turn of the event loop go to
 * PostgreSQL as one statement (docs/write-path.md, "Creates in batches"): under load, many
 * requests finish parsing in one turn, and one statement for all of them costs PostgreSQL and
 * the api far less than one each. Nothing waits for a batch to fill: the turn's creates are sent
 * as soon as it ends, so a lone create goes out at once, through `single`.
 *
 * Each create still commits with its events or not at all, and answers its own row, or null
 * when its address exists. A batch whose statement fails is retried one create at a time, so
 * one create's error is its own.
 */
export class SubscriberCreates<Row extends { channel_id: number; email: string }> {
  private pending: Pending<Row>[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Knex,
    /** One create on its own: the row and its events in one statement. */
    private readonly single: (row: CreateRow, events: PendingEvent[]) => Promise<Row | null>,
    /** Told when a statement recorded events. */
    private readonly eventRecorded?: () => void,
  ) {}

  insert(row: CreateRow, events: PendingEvent[]): Promise<Row | null> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, events, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch: Pending<Row>[] = [];
    const later: Pending<Row>[] = [];
    const keys = new Set<string>();
    for (const item of this.pending) {
      const key = `${item.row.channel_id}\n${item.row.email}`;
      if (batch.length < MAX_BATCH && !keys.has(key)) {
        keys.add(key);
        batch.push(item);
      } else {
        later.push(item);
      }
    }
    this.pending = later;
    if (later.length > 0) this.schedule();
    void (batch.length === 1 ? this.runOne(batch[0]!) : this.runBatch(batch));
  }

  private async runOne(item: Pending<Row>): Promise<void> {
    try {
      item.resolve(await this.single(item.row, item.events));
    } catch (error) {
      item.reject(error);
    }
  }

  private async runBatch(batch: Pending<Row>[]): Promise<void> {
    let rows: Row[];
    try {
      const input = JSON.stringify(batch.map((item, n) => ({ n, ...item.row, events: item.events })));
      rows = ((await prepared('subscribers.insert_batch_with_events', this.db.raw(BATCH_STATEMENT, [input]))) as { rows: Row[] }).rows;
    } catch {
      // Which create failed is not known: each one again on its own, with its own answer.
      await Promise.all(batch.map((item) => this.runOne(item)));
      return;
    }
    const written = new Map(rows.map((row) => [`${row.channel_id}\n${row.email}`, row]));
    if (batch.some((item) => item.events.length > 0 && written.has(`${item.row.channel_id}\n${item.row.email}`))) this.eventRecorded?.();
    for (const item of batch) item.resolve(written.get(`${item.row.channel_id}\n${item.row.email}`) ?? null);
  }
}
