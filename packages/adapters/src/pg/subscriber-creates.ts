import type { Knex } from 'knex';
import { prepared } from './database';
import { TurnBatches } from './turn-batches';

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

/**
 * The CTE of a batch statement that records the events of the rows `s` wrote: each input row `i`
 * (joined to its written row `on`) carries its events as JSON, written in input order, each
 * with the row's id as `subscriber_id`. A row not written (skipped, or stale) records none.
 */
export const batchEvents = (on: string) => `
e AS (
  INSERT INTO events (channel_id, type, data, created_at)
  SELECT s.channel_id, ev.type, ev.data || jsonb_build_object('subscriber_id', s.id), ev.created_at
    FROM s JOIN input i ON ${on},
         ROWS FROM (jsonb_to_recordset(i.events) AS (type text, data jsonb, created_at timestamptz)) WITH ORDINALITY AS ev(type, data, created_at, k)
   ORDER BY i.n, ev.k
)`;

/**
 * One statement for a batch: the rows arrive as one JSON array, so the text never varies and is
 * prepared once per connection. The rows are inserted in (channel, address) order, so two batches
 * that share addresses take their locks in the same order and never deadlock; an address that
 * exists is skipped (ON CONFLICT DO NOTHING) and its events with it. Within a batch every
 * (channel, address) is unique (the caller keeps repeats for the next batch), so joining the
 * inserted rows back to the input on it is exact.
 */
const batchStatement = (extraInput = '', also = '') => `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS r(
    n int, channel_id bigint, email text, first_name text, last_name text, ip_address text, source text,
    subscribed_at timestamptz, requires_confirmation boolean, is_active boolean, tags text[], custom_data jsonb,
    created_at timestamptz, updated_at timestamptz, events jsonb${extraInput})
),
s AS (
  INSERT INTO subscribers (channel_id, email, first_name, last_name, ip_address, source, subscribed_at,
                           requires_confirmation, is_active, tags, custom_data, created_at, updated_at)
  SELECT channel_id, email, first_name, last_name, ip_address, source, subscribed_at,
         requires_confirmation, is_active, tags, custom_data, created_at, updated_at
    FROM input ORDER BY channel_id, email
  ON CONFLICT (channel_id, email) DO NOTHING
  RETURNING *
),${batchEvents('i.channel_id = s.channel_id AND i.email = s.email')}${also}
SELECT * FROM s`;

const BATCH_STATEMENT = batchStatement();

/**
 * Form sign-ups (docs/opt-in-forms.md, "Submission processing"): the creates' statement, and a
 * third CTE adding the rows it wrote to their forms' day counters, one upsert per counter row
 * (a statement may not update one row twice), in key order, so batches lock counters alike.
 */
const COUNTED_BATCH_STATEMENT = batchStatement(
  ', form_id bigint, day date, shard int',
  `,
a AS (
  INSERT INTO opt_in_form_daily_statistics (form_id, day, shard, submissions)
  SELECT i.form_id, i.day, i.shard, count(*) FROM s JOIN input i ON i.channel_id = s.channel_id AND i.email = s.email
   GROUP BY i.form_id, i.day, i.shard ORDER BY i.form_id, i.day, i.shard
  ON CONFLICT (form_id, day, shard) DO UPDATE SET submissions = opt_in_form_daily_statistics.submissions + excluded.submissions
)`,
);

/** A create as batched: the row and its events. */
export interface CreateItem {
  row: CreateRow;
  events: PendingEvent[];
}

/**
 * Subscriber creates that reach the repository in the same turn of the event loop go to
 * PostgreSQL as one statement (docs/write-path.md, "Writes in batches"). Each create still
 * commits with its events or not at all, and answers its own row, or null when its address
 * exists; a lone create goes through `single`.
 */
export function subscriberCreates<Row extends { channel_id: number; email: string }>(
  db: Knex,
  /** One create on its own: the row and its events in one statement. */
  single: (item: CreateItem) => Promise<Row | null>,
  /** Told when a statement recorded events. */
  eventRecorded?: () => void,
): TurnBatches<CreateItem, Row | null> {
  return createBatches(db, 'subscribers.insert_batch_with_events', BATCH_STATEMENT, single, eventRecorded);
}

/** A form sign-up as batched: the create, and the day counter of its form it adds to when written. */
export interface CountedCreateItem extends CreateItem {
  count: { formId: number; day: string; shard: number };
}

/**
 * Form sign-ups of new addresses that reach the repository in the same turn: one statement writes
 * the subscribers, their events and the forms' counters, as subscriberCreates does the creates.
 */
export function formSignUps<Row extends { channel_id: number; email: string }>(
  db: Knex,
  single: (item: CountedCreateItem) => Promise<Row | null>,
  eventRecorded?: () => void,
): TurnBatches<CountedCreateItem, Row | null> {
  return createBatches(db, 'form_submissions.insert_batch_counted', COUNTED_BATCH_STATEMENT, single, eventRecorded, (item) => ({
    form_id: item.count.formId,
    day: item.count.day,
    shard: item.count.shard,
  }));
}

function createBatches<Item extends CreateItem, Row extends { channel_id: number; email: string }>(
  db: Knex,
  name: string,
  statement: string,
  single: (item: Item) => Promise<Row | null>,
  eventRecorded?: () => void,
  extra: (item: Item) => Record<string, unknown> = () => ({}),
): TurnBatches<Item, Row | null> {
  const keyOf = (row: { channel_id: number; email: string }) => `${row.channel_id}\n${row.email}`;
  return new TurnBatches({
    key: (item) => keyOf(item.row),
    single,
    async batch(items) {
      const input = JSON.stringify(items.map((item, n) => ({ n, ...item.row, events: item.events, ...extra(item) })));
      const { rows } = (await prepared(name, db.raw(statement, [input]))) as { rows: Row[] };
      const written = new Map(rows.map((row) => [keyOf(row), row]));
      if (items.some((item) => item.events.length > 0 && written.has(keyOf(item.row)))) eventRecorded?.();
      return items.map((item) => written.get(keyOf(item.row)) ?? null);
    },
  });
}
