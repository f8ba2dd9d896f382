import {
  ValidationError,
  type NewSubscriber,
  type OutboxEvent,
  type Page,
  type Subscriber,
  type SubscriberFilter,
  type SubscriberRepository,
} from '@mailcast/core';
import type { Knex } from 'knex';
import { prepared } from './database';
import type { SubscriberRow } from './subscriber-row';
import { subscriberChanges, type UpdateItem } from './subscriber-changes';
import { subscriberCreates, type CreateItem, type CreateRow, type PendingEvent } from './subscriber-creates';
import type { TurnBatches } from './turn-batches';
import { SubscriberLists } from './subscriber-list';

export type { SubscriberRow };

export const toSubscriber = (row: SubscriberRow): Subscriber => ({
  id: row.id,
  channelId: row.channel_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  ipAddress: row.ip_address,
  isActive: row.is_active,
  source: row.source,
  subscribedAt: row.subscribed_at,
  unsubscribedAt: row.unsubscribed_at,
  confirmedAt: row.confirmed_at,
  requiresConfirmation: row.requires_confirmation,
  redactedAt: row.redacted_at,
  tags: row.tags,
  customData: row.custom_data,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The columns an insert of `s` writes: every one but the id and the ones that start null. */
export function rowFor(s: NewSubscriber, now: Date): CreateRow {
  return {
    channel_id: s.channelId,
    email: s.email,
    first_name: s.firstName ?? null,
    last_name: s.lastName ?? null,
    ip_address: s.ipAddress ?? null,
    source: s.source ?? 'api_subscription',
    subscribed_at: s.subscribedAt ?? now,
    requires_confirmation: s.requiresConfirmation,
    is_active: s.isActive ?? true,
    tags: s.tags ?? [],
    custom_data: s.customData ?? {},
    created_at: now,
    updated_at: now,
  };
}

/** Every mutable column of `s`, as an update writes them. */
function updateColumns(s: Subscriber, now: Date): UpdateItem['columns'] {
  return {
    email: s.email,
    first_name: s.firstName,
    last_name: s.lastName,
    ip_address: s.ipAddress,
    is_active: s.isActive,
    source: s.source,
    subscribed_at: s.subscribedAt,
    unsubscribed_at: s.unsubscribedAt,
    confirmed_at: s.confirmedAt,
    requires_confirmation: s.requiresConfirmation,
    redacted_at: s.redactedAt,
    tags: s.tags,
    custom_data: s.customData,
    updated_at: now,
  };
}

/** The columns as knex writes them: custom_data as JSON text (pg would send an array as a PostgreSQL array). */
const asWritten = (columns: UpdateItem['columns']) => ({ ...columns, custom_data: JSON.stringify(columns.custom_data) as unknown as Record<string, unknown> });

/** The unique (channel_id, email) key: a new address that another subscriber already has. */
async function uniqueEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw ValidationError.forFields({ email: ['has already been taken'] });
    throw error;
  }
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

export const pendingEvents = (events: OutboxEvent[]): PendingEvent[] =>
  events.map((e) => ({ type: e.type, data: e.data, created_at: e.createdAt.toISOString() }));

/**
 * One statement: the write, and in a second CTE the events of the row it returns, so they
 * commit together, on a pool as in a transaction (docs/write-path.md, "One statement"). The
 * row's id is set as each event's `subscriber_id` (a new row's id is known only here). `also`
 * is one more CTE of the same statement, reading the written row as `s` (a form submission's
 * counter, docs/opt-in-forms.md). Each write sets every column, so its text never varies: a
 * prepared statement, planned once per connection.
 */
export async function writeWithEvents(
  db: Knex,
  name: string,
  write: Knex.QueryBuilder,
  pending: PendingEvent[],
  also?: { sql: string; bindings: readonly Knex.RawBinding[] },
): Promise<SubscriberRow | null> {
  const statement = db.raw(
    `WITH s AS (?),
     e AS (INSERT INTO events (channel_id, type, data, created_at)
           SELECT s.channel_id, ev.type, ev.data || jsonb_build_object('subscriber_id', s.id), ev.created_at
             FROM s, jsonb_to_recordset(?::jsonb) AS ev(type text, data jsonb, created_at timestamptz))${also ? `,\n     a AS (${also.sql})` : ''}
     SELECT * FROM s`,
    [write, JSON.stringify(pending), ...(also?.bindings ?? [])],
  );
  const result = await prepared(name, statement);
  return (result as { rows: SubscriberRow[] }).rows[0] ?? null;
}

/** The insert of a new row, skipped (no row returned) when the address is in the channel already. */
export function insertQuery(db: Knex, row: CreateRow) {
  return db<SubscriberRow>('subscribers')
    .insert({ ...row, custom_data: JSON.stringify(row.custom_data) as unknown as Record<string, unknown> })
    .onConflict(['channel_id', 'email'])
    .ignore()
    .returning('*');
}

export class PgSubscriberRepository implements SubscriberRepository {
  constructor(
    private readonly db: Knex,
    private readonly lists = new SubscriberLists(db),
    /** Told when a write recorded outbox events (the relays are woken after the commit). */
    private readonly eventRecorded?: () => void,
  ) {
    this.creates = subscriberCreates<SubscriberRow>(db, (item) => this.insertOne(item), eventRecorded);
    this.changes = subscriberChanges<SubscriberRow>(
      db,
      { read: (key) => this.readVersioned(key.channel_id, key.email), update: (item) => this.updateOne(item) },
      eventRecorded,
    );
  }

  /** On the pool, creates and unlocked changes go a turn of the event loop at a time (docs/write-path.md, "Writes in batches"). */
  private readonly creates: TurnBatches<CreateItem, SubscriberRow | null>;
  private readonly changes: ReturnType<typeof subscriberChanges<SubscriberRow>>;

  /** In a transaction a statement runs on its connection, at once; on the pool, with the turn's others. */
  private get batched(): boolean {
    return this.db.isTransaction !== true;
  }

  async insertIfAbsent(s: NewSubscriber, now: Date): Promise<Subscriber | null> {
    const rows = (await this.insertQuery(rowFor(s, now))) as SubscriberRow[];
    return rows[0] ? toSubscriber(rows[0]) : null;
  }

  /**
   * One statement: the insert, and in a second CTE the events of the row it returns, so they
   * commit together (docs/write-path.md, "Subscriber create"). The events' data is computed from
   * the row as written (every column is set here), and the id joined in by PostgreSQL.
   */
  async insertIfAbsentWithEvents(s: NewSubscriber, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null> {
    const row = rowFor(s, now);
    const written = toSubscriber({ ...row, id: 0, unsubscribed_at: null, confirmed_at: null, redacted_at: null } as SubscriberRow);
    const pending = pendingEvents(events(written));
    const created = this.batched ? await this.creates.submit({ row, events: pending }) : await this.insertOne({ row, events: pending });
    return created ? toSubscriber(created) : null;
  }

  /** One create on its own: the insert and its events in one statement. */
  private async insertOne({ row, events }: CreateItem): Promise<SubscriberRow | null> {
    return this.withEvents('subscribers.insert_with_events', this.insertQuery(row), events);
  }

  async findVersioned(channelId: number, email: string): Promise<{ subscriber: Subscriber; version: string } | null> {
    const row = this.batched ? await this.changes.reads.submit({ channel_id: channelId, email }) : await this.readVersioned(channelId, email);
    return row ? { subscriber: toSubscriber(row), version: row.row_version } : null;
  }

  private async readVersioned(channelId: number, email: string): Promise<(SubscriberRow & { row_version: string }) | null> {
    const query = this.db('subscribers').where({ channel_id: channelId, email }).first('*', this.db.raw('xmin::text AS row_version'));
    return ((await prepared('subscribers.find_versioned', query)) as (SubscriberRow & { row_version: string }) | undefined) ?? null;
  }

  /**
   * The row's xmin is its version: every committed UPDATE writes a new row version with the
   * writing transaction's id, so an unchanged xmin means no change since it was read.
   */
  async saveIfVersion(s: Subscriber, version: string, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null> {
    const item: UpdateItem = {
      id: s.id,
      channel_id: s.channelId,
      version,
      columns: updateColumns(s, now),
      events: pendingEvents(events({ ...s, updatedAt: now })),
    };
    const row = this.batched ? await this.changes.updates.submit(item) : await this.updateOne(item);
    return row ? toSubscriber(row) : null;
  }

  /** One update on its own: applied only at the version read, with its events, in one statement. */
  private updateOne(item: UpdateItem): Promise<SubscriberRow | null> {
    const update = this.db<SubscriberRow>('subscribers')
      .where({ channel_id: item.channel_id, id: item.id })
      .whereRaw('xmin = ?::xid', [item.version])
      .update(asWritten(item.columns))
      .returning('*');
    return uniqueEmail(() => this.withEvents('subscribers.save_if_version', update, item.events));
  }

  /** The write and its events in one statement (writeWithEvents); the relays are told after it. */
  private async withEvents(name: string, write: Knex.QueryBuilder, pending: PendingEvent[]): Promise<SubscriberRow | null> {
    const row = await writeWithEvents(this.db, name, write, pending);
    if (row !== null && pending.length > 0) this.eventRecorded?.();
    return row;
  }

  private insertQuery(row: CreateRow) {
    return insertQuery(this.db, row);
  }

  async findByEmail(channelId: number, email: string, options: { forUpdate?: boolean } = {}): Promise<Subscriber | null> {
    const query = this.db<SubscriberRow>('subscribers').where({ channel_id: channelId, email }).first();
    if (options.forUpdate) query.forUpdate();
    const row = await query;
    return row ? toSubscriber(row as SubscriberRow) : null;
  }

  async findById(channelId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<Subscriber | null> {
    const query = this.db<SubscriberRow>('subscribers').where({ channel_id: channelId, id }).first();
    if (options.forUpdate) query.forUpdate();
    const row = await query;
    return row ? toSubscriber(row as SubscriberRow) : null;
  }

  async save(s: Subscriber, now: Date): Promise<Subscriber> {
    return uniqueEmail(async () => {
      const [row] = await this.db<SubscriberRow>('subscribers')
        .where({ channel_id: s.channelId, id: s.id })
        .update(asWritten(updateColumns(s, now)))
        .returning('*');
      if (row === undefined) throw new Error(`subscriber ${s.id} vanished during its update`);
      return toSubscriber(row as SubscriberRow);
    });
  }

  async list(channelId: number, filter: SubscriberFilter, page: Page): Promise<{ items: Subscriber[]; total: number }> {
    const { rows, total } = await this.lists.list<SubscriberRow>(channelId, filter, page);
    return { items: rows.map(toSubscriber), total };
  }
}
