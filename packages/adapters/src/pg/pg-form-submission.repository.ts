import type { FormSubmissionRepository, NewSubscriber, OutboxEvent, PendingFormActions, Subscriber, TakenFormActions, TopicStorage } from '@mailcast/core';
import type { Knex } from 'knex';
import { prepared } from './database';
import { insertQuery, pendingEvents, rowFor, toSubscriber, writeWithEvents, type SubscriberRow } from './pg-subscriber.repository';
import { formSignUps, type CountedCreateItem } from './subscriber-creates';
import type { TurnBatches } from './turn-batches';

/** Adds one submission to a counter row; the `also` CTE of a sign-up reads the new row as `s`. */
const COUNT_SUBMISSION = `INSERT INTO opt_in_form_daily_statistics (form_id, day, shard, submissions) SELECT ?::bigint, ?::date, ?::int, 1 FROM s
       ON CONFLICT (form_id, day, shard) DO UPDATE SET submissions = opt_in_form_daily_statistics.submissions + 1`;

interface PendingRow {
  form_id: string | number;
  subscriber_id: string | number;
  tags: string[];
  sequence_ids: Array<string | number>;
  send_welcome_email: boolean;
  welcome_email_template_id: string | number | null;
  confirmation_redirect_url?: string | null;
}

const toPending = (row: PendingRow): PendingFormActions => ({
  formId: Number(row.form_id),
  subscriberId: Number(row.subscriber_id),
  tags: row.tags,
  sequenceIds: row.sequence_ids.map(Number),
  sendWelcomeEmail: row.send_welcome_email,
  welcomeEmailTemplateId: row.welcome_email_template_id === null ? null : Number(row.welcome_email_template_id),
});

/** The rows a form submission writes besides the subscriber (migration 2026120100050; docs/opt-in-forms.md). */
export class PgFormSubmissionRepository implements FormSubmissionRepository {
  constructor(
    private readonly db: Knex,
    /** Told when a write recorded outbox events (the relays are woken after the commit). */
    private readonly eventRecorded?: () => void,
  ) {
    this.signUps = formSignUps<SubscriberRow>(db, (item) => this.insertCounted(item), eventRecorded);
  }

  /** On the pool, the sign-ups of one turn of the event loop go as one statement (docs/write-path.md, "Writes in batches"). */
  private readonly signUps: TurnBatches<CountedCreateItem, SubscriberRow | null>;

  async holdPending(a: PendingFormActions, now: Date): Promise<void> {
    await this.db.raw(
      `INSERT INTO opt_in_form_pending_actions
         (form_id, subscriber_id, tags, sequence_ids, send_welcome_email, welcome_email_template_id, created_at, updated_at)
       VALUES (?, ?, ?::text[], ?::bigint[], ?, ?, ?, ?)
       ON CONFLICT (form_id, subscriber_id) DO UPDATE SET
         tags = excluded.tags, sequence_ids = excluded.sequence_ids, send_welcome_email = excluded.send_welcome_email,
         welcome_email_template_id = excluded.welcome_email_template_id, updated_at = excluded.updated_at`,
      [a.formId, a.subscriberId, a.tags, a.sequenceIds, a.sendWelcomeEmail, a.welcomeEmailTemplateId, now, now],
    );
  }

  async takePending(subscriberId: number): Promise<TakenFormActions[]> {
    // Every confirmation asks, most find nothing: one prepared statement on the subscriber's index.
    const query = this.db.raw(
      `WITH taken AS (DELETE FROM opt_in_form_pending_actions WHERE subscriber_id = ? RETURNING *)
       SELECT taken.*, f.confirmation_redirect_url FROM taken JOIN opt_in_forms f ON f.id = taken.form_id
       ORDER BY taken.created_at, taken.form_id`,
      [subscriberId],
    );
    const { rows } = (await prepared('form_pending.take', query)) as { rows: PendingRow[] };
    return rows.map((row) => ({ ...toPending(row), confirmationRedirectUrl: row.confirmation_redirect_url ?? null }));
  }

  async dropPending(subscriberId: number): Promise<void> {
    await this.db('opt_in_form_pending_actions').where({ subscriber_id: subscriberId }).delete();
  }

  async claimWelcome(formId: number, subscriberId: number, now: Date): Promise<boolean> {
    const { rows } = await this.db.raw<{ rows: unknown[] }>(
      `INSERT INTO opt_in_form_welcomes (form_id, subscriber_id, created_at) VALUES (?, ?, ?)
       ON CONFLICT (form_id, subscriber_id) DO NOTHING RETURNING 1`,
      [formId, subscriberId, now],
    );
    return rows.length === 1;
  }

  async recordWelcome(formId: number, subscriberId: number, transactionalId: number): Promise<void> {
    await this.db('opt_in_form_welcomes').where({ form_id: formId, subscriber_id: subscriberId }).update({ transactional_id: transactionalId });
  }

  /**
   * The subscriber's insert, its events and the counter in one statement on the pool (autocommit:
   * one round trip, where BEGIN, insert, count and COMMIT took four), with the other sign-ups of
   * the same turn of the event loop. The counter's CTE reads the inserted row, so an address
   * already in the channel writes nothing at all.
   */
  async insertSubscriberCounted(
    subscriber: NewSubscriber,
    now: Date,
    events: (row: Subscriber) => OutboxEvent[],
    count: { formId: number; day: string; shard: number },
  ): Promise<Subscriber | null> {
    const row = rowFor(subscriber, now);
    const written = toSubscriber({ ...row, id: 0, unsubscribed_at: null, confirmed_at: null, redacted_at: null } as SubscriberRow);
    const item: CountedCreateItem = { row, events: pendingEvents(events(written)), count };
    const created = this.db.isTransaction === true ? await this.insertCounted(item) : await this.signUps.submit(item);
    return created ? toSubscriber(created) : null;
  }

  /** One sign-up on its own: its insert, events and counter in one statement. */
  private async insertCounted({ row, events, count }: CountedCreateItem): Promise<SubscriberRow | null> {
    const created = await writeWithEvents(this.db, 'form_submissions.insert_counted', insertQuery(this.db, row), events, {
      sql: COUNT_SUBMISSION,
      bindings: [count.formId, count.day, count.shard],
    });
    if (created !== null) this.eventRecorded?.();
    return created;
  }

  async countSubmission(formId: number, day: string, shard: number): Promise<void> {
    // Sharded rows (migration 20261201000001): concurrent submissions of one form rarely share a row lock.
    const query = this.db.raw(
      `INSERT INTO opt_in_form_daily_statistics (form_id, day, shard, submissions) VALUES (?, ?::date, ?, 1)
       ON CONFLICT (form_id, day, shard) DO UPDATE SET submissions = opt_in_form_daily_statistics.submissions + 1`,
      [formId, day, shard],
    );
    await prepared('form_statistics.count_submission', query);
  }

  async topics(channelId: number, ids: readonly number[]): Promise<TopicStorage[]> {
    if (ids.length === 0) return [];
    const rows = (await this.db('topics')
      .where({ channel_id: channelId })
      .whereIn('id', [...ids])
      .select('id', 'storage', 'custom_data_key', 'tag_name')) as Array<{
      id: string | number;
      storage: 'custom_data' | 'tag';
      custom_data_key: string | null;
      tag_name: string | null;
    }>;
    return rows.map((r) => ({ id: Number(r.id), storage: r.storage, customDataKey: r.custom_data_key, tagName: r.tag_name }));
  }
}
