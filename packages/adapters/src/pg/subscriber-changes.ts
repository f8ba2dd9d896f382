import type { Knex } from 'knex';
import { prepared } from './database';
import type { SubscriberRow } from './subscriber-row';
import { batchEvents, type PendingEvent } from './subscriber-creates';
import { TurnBatches } from './turn-batches';

/** A subscriber looked up by address, for a change (docs/write-path.md, "Subscriber changes"). */
export interface ReadKey {
  channel_id: number;
  email: string;
}

/** Every column an update writes, the version it expects, and its events. */
export interface UpdateItem {
  id: number;
  channel_id: number;
  /** The row's xmin as read: the update applies only if the row is still at it. */
  version: string;
  /** Every column but the key and created_at. */
  columns: Omit<SubscriberRow, 'id' | 'channel_id' | 'created_at'>;
  events: PendingEvent[];
}

const READ_STATEMENT = `
SELECT s.*, s.xmin::text AS row_version
  FROM jsonb_to_recordset(?::jsonb) AS k(channel_id bigint, email text)
  JOIN subscribers s ON s.channel_id = k.channel_id AND s.email = k.email`;

/**
 * One statement for a batch of updates. Each applies only where the row is still at the version
 * it was read at (xmin: any committed update writes a new one), so a row changed in between is
 * left alone and its caller takes the locked path. The rows are locked in id order first, so two
 * batches that share rows take their locks in one order and never deadlock. Within a batch every
 * row is unique (the caller keeps repeats for the next batch).
 */
const UPDATE_STATEMENT = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(?::jsonb) AS r(
    n int, id bigint, channel_id bigint, version text, email text, first_name text, last_name text, ip_address text,
    is_active boolean, source text, subscribed_at timestamptz, unsubscribed_at timestamptz, confirmed_at timestamptz,
    requires_confirmation boolean, redacted_at timestamptz, tags text[], custom_data jsonb, updated_at timestamptz,
    events jsonb)
),
locked AS MATERIALIZED (
  SELECT t.id FROM subscribers t JOIN input i ON t.id = i.id AND t.channel_id = i.channel_id
   ORDER BY t.id FOR UPDATE OF t
),
s AS (
  UPDATE subscribers t
     SET email = i.email, first_name = i.first_name, last_name = i.last_name, ip_address = i.ip_address,
         is_active = i.is_active, source = i.source, subscribed_at = i.subscribed_at,
         unsubscribed_at = i.unsubscribed_at, confirmed_at = i.confirmed_at,
         requires_confirmation = i.requires_confirmation, redacted_at = i.redacted_at, tags = i.tags,
         custom_data = i.custom_data, updated_at = i.updated_at
    FROM input i JOIN locked l ON l.id = i.id
   WHERE t.id = i.id AND t.channel_id = i.channel_id AND t.xmin = i.version::xid
  RETURNING t.*
),${batchEvents('i.id = s.id')}
SELECT * FROM s`;

/**
 * The two round trips of a subscriber change without a lock (read with version, then write if
 * unchanged), each batched by turn of the event loop like creates (docs/write-path.md, "Writes in
 * batches"). A lone read or update goes through its `single`.
 */
export function subscriberChanges<Row extends { id: number; channel_id: number; email: string }>(
  db: Knex,
  single: {
    read(key: ReadKey): Promise<(Row & { row_version: string }) | null>;
    update(item: UpdateItem): Promise<Row | null>;
  },
  /** Told when a statement recorded events. */
  eventRecorded?: () => void,
): { reads: TurnBatches<ReadKey, (Row & { row_version: string }) | null>; updates: TurnBatches<UpdateItem, Row | null> } {
  const keyOf = (k: ReadKey) => `${k.channel_id}\n${k.email}`;
  const reads = new TurnBatches<ReadKey, (Row & { row_version: string }) | null>({
    key: () => null,
    single: single.read,
    async batch(keys) {
      const { rows } = (await prepared('subscribers.find_versioned_batch', db.raw(READ_STATEMENT, [JSON.stringify(keys)]))) as {
        rows: Array<Row & { row_version: string }>;
      };
      const found = new Map(rows.map((row) => [keyOf(row), row]));
      return keys.map((k) => found.get(keyOf(k)) ?? null);
    },
  });
  const updates = new TurnBatches<UpdateItem, Row | null>({
    key: (item) => `${item.channel_id}\n${item.id}`,
    single: single.update,
    async batch(items) {
      const input = JSON.stringify(
        items.map((item, n) => ({ n, id: item.id, channel_id: item.channel_id, version: item.version, ...item.columns, events: item.events })),
      );
      const { rows } = (await prepared('subscribers.save_if_version_batch', db.raw(UPDATE_STATEMENT, [input]))) as { rows: Row[] };
      const written = new Map(rows.map((row) => [Number(row.id), row]));
      if (items.some((item) => item.events.length > 0 && written.has(item.id))) eventRecorded?.();
      return items.map((item) => written.get(item.id) ?? null);
    },
  });
  return { reads, updates };
}
