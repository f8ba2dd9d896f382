import type {
  AttemptFailure,
  AttemptSuccess,
  ClaimedAttempt,
  DeliveryJobRef,
  Page,
  WebhookDelivery,
  WebhookDeliveryRepository,
  WebhookDeliveryStatus,
} from '@mailcast/core';
import type { EventType } from '@mailcast/domain';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { prepared } from './database';

interface DeliveryRow {
  id: number;
  channel_id: number;
  event_id: number;
  webhook_endpoint_id: number;
  event_type: string;
  event_data: Record<string, unknown>;
  status: string;
  attempt_number: number;
  response_status: number | null;
  response_body: string | null;
  error_message: string | null;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_retry_at: Date | null;
  successfully_delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  channelId: row.channel_id,
  eventId: row.event_id,
  webhookEndpointId: row.webhook_endpoint_id,
  eventType: row.event_type as EventType,
  eventData: row.event_data,
  status: row.status as WebhookDeliveryStatus,
  attemptNumber: row.attempt_number,
  responseStatus: row.response_status,
  responseBody: row.response_body,
  errorMessage: row.error_message,
  firstAttemptAt: row.first_attempt_at,
  lastAttemptAt: row.last_attempt_at,
  nextRetryAt: row.next_retry_at,
  successfullyDeliveredAt: row.successfully_delivered_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

interface AttemptRow {
  id: number;
  channel_id: number;
  event_id: number;
  first_attempt_at: Date | null;
  attempt: number;
  endpoint_id: number;
  url: string;
  secret: string;
  retries_to_attempt: number;
  type: string;
  data: Record<string, unknown>;
  event_created_at: Date;
}

const toAttempt = (r: AttemptRow, openSecret: (sealed: string) => string): ClaimedAttempt => ({
  deliveryId: r.id,
  channelId: r.channel_id,
  attempt: r.attempt,
  eventId: r.event_id,
  eventType: r.type as EventType,
  eventData: r.data,
  eventCreatedAt: r.event_created_at,
  endpointId: r.endpoint_id,
  url: r.url,
  secret: openSecret(r.secret),
  retriesToAttempt: r.retries_to_attempt,
  firstAttemptAt: r.first_attempt_at,
});

// A lease in database time: dispatchers never compare their clocks with it.
const LEASE_UNTIL = `now() + CAST(:leaseMs AS integer) * interval '1 millisecond'`;

/** A delivery row as the job of its next attempt. */
const toJobRefs = (rows: Array<{ id: number; webhook_endpoint_id: number; attempt_number: number }>): DeliveryJobRef[] =>
  rows.map((r) => ({ deliveryId: r.id, endpointId: r.webhook_endpoint_id, attempt: r.attempt_number + 1 }));

/** Endpoint secrets opened at most this many at a time per repository; past it, the cache starts over. */
const OPENED_SECRETS = 1000;

export class PgWebhookDeliveryRepository implements WebhookDeliveryRepository {
  /**
   * Every attempt carries its endpoint's sealed secret, the same for each of the endpoint's
   * attempts: opened once (an AES-GCM decryption), not once per POST. Keyed by the sealed value,
   * so a changed or re-sealed secret is opened anew.
   */
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
  ) {}

  private readonly openSecret = (sealed: string): string => {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.secrets.openText('webhook_endpoints.secret', sealed);
      if (this.opened.size >= OPENED_SECRETS) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  };

  private withEvent() {
    return this.db('webhook_deliveries as d').join('events as e', 'e.id', 'd.event_id').select('d.*', 'e.data as event_data');
  }

  async listForEndpoint(endpointId: number, page: Page): Promise<{ items: WebhookDelivery[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.withEvent()
        .where('d.webhook_endpoint_id', endpointId)
        .orderBy([
          { column: 'd.created_at', order: 'desc' },
          { column: 'd.id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      this.db('webhook_deliveries').where({ webhook_endpoint_id: endpointId }).count<{ count: number }[]>({ count: '*' }).first(),
    ]);
    return { items: (rows as DeliveryRow[]).map(toDelivery), total: Number(count?.count ?? 0) };
  }

  async findById(id: number): Promise<WebhookDelivery | null> {
    const row = (await this.withEvent().where('d.id', id).first()) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  }

  async createTestDelivery(input: Parameters<WebhookDeliveryRepository['createTestDelivery']>[0]) {
    const [event] = await this.db('events')
      .insert({
        channel_id: input.channelId,
        type: input.type,
        data: JSON.stringify(input.data),
        created_at: input.now,
        // Dispatched from birth: the fan-out must not send a test to the channel's other endpoints.
        dispatched_at: input.now,
      })
      .returning('id');
    const eventId = (event as { id: number }).id;
    const [row] = await this.db('webhook_deliveries')
      .insert({
        channel_id: input.channelId,
        event_id: eventId,
        webhook_endpoint_id: input.endpointId,
        event_type: input.type,
        created_at: input.now,
        updated_at: input.now,
      })
      .returning('*');
    return { eventId, delivery: toDelivery({ ...(row as DeliveryRow), event_data: input.data }) };
  }

  async fanOut(limit: number, now: Date, leaseMs: number): Promise<{ events: number; attempts: ClaimedAttempt[] }> {
    // One statement: claim a batch of undispatched events (SKIP LOCKED, so several dispatchers
    // share the backlog), mark them, insert one delivery per subscribing live endpoint, and
    // read back everything the first attempts need, so they go to the POSTs without a job or
    // another read. ON CONFLICT keeps it idempotent should an event ever be claimed twice.
    // Prepared: the relay runs it on every poll, busy or idle.
    const result = await prepared(
      'fan_out_events',
      this.db.raw(
        `WITH claimed AS (
         SELECT id, channel_id, type, data, created_at FROM events
         WHERE dispatched_at IS NULL
         ORDER BY id
         LIMIT :limit
         FOR UPDATE SKIP LOCKED
       ), marked AS (
         UPDATE events e SET dispatched_at = :now FROM claimed c WHERE e.id = c.id RETURNING e.id
       ), inserted AS (
         INSERT INTO webhook_deliveries (channel_id, event_id, webhook_endpoint_id, event_type, created_at, updated_at, lease_expires_at)
         SELECT c.channel_id, c.id, w.id, c.type, :now, :now, ${LEASE_UNTIL}
         FROM claimed c
         JOIN webhook_endpoints w
           ON w.channel_id = c.channel_id AND w.active AND w.deleted_at IS NULL AND c.type = ANY (w.event_types)
         ORDER BY c.id, w.id
         ON CONFLICT (event_id, webhook_endpoint_id) DO NOTHING
         RETURNING id, event_id, webhook_endpoint_id
       )
       SELECT i.id, c.channel_id, i.event_id, c.type, c.data, c.created_at AS event_created_at,
              w.id AS endpoint_id, w.url, w.secret, w.retries_to_attempt,
              CAST((SELECT count(*) FROM marked) AS int) AS events
       FROM (SELECT 1) one
       LEFT JOIN (inserted i
                  JOIN claimed c ON c.id = i.event_id
                  JOIN webhook_endpoints w ON w.id = i.webhook_endpoint_id) ON true
       ORDER BY i.id`,
        { limit, now, leaseMs },
      ),
    );
    const rows = result.rows as Array<AttemptRow & { events: number }>;
    return {
      events: rows[0]?.events ?? 0,
      attempts: rows.filter((r) => r.id !== null).map((r) => toAttempt({ ...r, attempt: 1, first_attempt_at: null }, this.openSecret)),
    };
  }

  async claim(jobs: readonly DeliveryJobRef[], now: Date): Promise<ClaimedAttempt[]> {
    const result = await this.db.raw(
      `WITH jobs AS (
         SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:attempts AS int[])) AS j(delivery_id, attempt)
       ), cancelled AS (
         -- The endpoint was deactivated or deleted after the fan-out: nothing more goes to it.
         UPDATE webhook_deliveries d SET status = 'cancelled', next_retry_at = NULL, updated_at = :now
         FROM jobs j, webhook_endpoints w
         WHERE d.id = j.delivery_id AND w.id = d.webhook_endpoint_id AND d.status = 'pending'
           AND (NOT w.active OR w.deleted_at IS NOT NULL)
         RETURNING d.id
       ), claimed AS (
         SELECT d.id, d.channel_id, d.event_id, d.first_attempt_at, j.attempt,
                w.id AS endpoint_id, w.url, w.secret, w.retries_to_attempt
         FROM webhook_deliveries d
         JOIN jobs j ON j.delivery_id = d.id
         JOIN webhook_endpoints w ON w.id = d.webhook_endpoint_id
         WHERE d.status = 'pending' AND d.attempt_number = j.attempt - 1 AND w.active AND w.deleted_at IS NULL
       )
       SELECT c.*, e.type, e.data, e.created_at AS event_created_at, (SELECT count(*) FROM cancelled) AS cancelled
       FROM claimed c JOIN events e ON e.id = c.event_id
       ORDER BY c.id`,
      { ids: jobs.map((j) => j.deliveryId), attempts: jobs.map((j) => j.attempt), now },
    );
    return (result.rows as AttemptRow[]).map((r) => toAttempt(r, this.openSecret));
  }

  async recordSuccesses(successes: readonly AttemptSuccess[]): Promise<void> {
    // One round trip for a whole flush. The endpoints' last_response_code / last_sent_at take
    // the newest attempt of the batch; a row another flush holds at that instant is skipped
    // (SKIP LOCKED) rather than waited for, so flushes never queue or deadlock on the few hot
    // endpoint rows, and the other flush writes an attempt of the same moment.
    // Prepared: it runs many times a second while deliveries flow.
    await prepared(
      'record_webhook_successes',
      this.db.raw(
        `WITH s AS (
         SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:endpoints AS bigint[]), CAST(:attempts AS int[]), CAST(:statuses AS int[]),
                              CAST(:bodies AS text[]), CAST(:attempted AS timestamptz[]), CAST(:finished AS timestamptz[]))
                  AS s(id, endpoint_id, attempt, status, body, attempted_at, finished_at)
       ), delivered AS (
         UPDATE webhook_deliveries d
         SET status = 'succeeded', attempt_number = s.attempt, response_status = s.status, response_body = s.body,
             error_message = NULL, first_attempt_at = COALESCE(d.first_attempt_at, s.attempted_at),
             last_attempt_at = s.attempted_at, next_retry_at = NULL, successfully_delivered_at = s.finished_at,
             updated_at = s.finished_at
         FROM s WHERE d.id = s.id AND d.status = 'pending' AND d.attempt_number = s.attempt - 1
         RETURNING d.id
       ), latest AS (
         SELECT DISTINCT ON (endpoint_id) endpoint_id, status, attempted_at FROM s ORDER BY endpoint_id, attempted_at DESC
       ), locked AS (
         SELECT w.id FROM webhook_endpoints w JOIN latest l ON l.endpoint_id = w.id
         WHERE w.last_sent_at IS NULL OR w.last_sent_at <= l.attempted_at
         FOR UPDATE OF w SKIP LOCKED
       )
       UPDATE webhook_endpoints w SET last_response_code = l.status, last_sent_at = l.attempted_at
       FROM latest l JOIN locked k ON k.id = l.endpoint_id
       WHERE w.id = l.endpoint_id`,
        {
          ids: successes.map((s) => s.deliveryId),
          endpoints: successes.map((s) => s.endpointId),
          attempts: successes.map((s) => s.attempt),
          statuses: successes.map((s) => s.status),
          bodies: successes.map((s) => s.body),
          attempted: successes.map((s) => s.attemptedAt),
          finished: successes.map((s) => s.finishedAt),
        },
      ),
    );
  }

  /**
   * Skips the endpoint row when another transaction holds it (SKIP LOCKED), as a success flush
   * does: this transaction already holds the delivery row, and deleting an endpoint locks the
   * endpoint row, then its deliveries, so waiting here could deadlock with a delete (one of
   * the two aborted: the api answering 500). The other holder writes an attempt of the same moment.
   */
  private touchEndpoint(endpointId: number, status: number | null, sentAt: Date) {
    return this.db.raw(
      `UPDATE webhook_endpoints w SET last_response_code = :status, last_sent_at = :sentAt
       FROM (SELECT id FROM webhook_endpoints
             WHERE id = :endpointId AND (last_sent_at IS NULL OR last_sent_at <= :sentAt)
             FOR UPDATE SKIP LOCKED) locked
       WHERE w.id = locked.id`,
      { status, sentAt, endpointId },
    );
  }

  async extendLeases(deliveryIds: readonly number[], leaseMs: number | null): Promise<void> {
    await this.db.raw(
      `UPDATE webhook_deliveries SET lease_expires_at = ${leaseMs === null ? 'NULL' : LEASE_UNTIL}
        WHERE id = ANY(CAST(:ids AS bigint[])) AND status = 'pending'`,
      { ids: [...deliveryIds], ...(leaseMs === null ? {} : { leaseMs }) },
    );
  }

  async takeLapsed(graceMs: number, limit: number): Promise<DeliveryJobRef[]> {
    const result = await this.db.raw(
      `UPDATE webhook_deliveries d SET lease_expires_at = NULL, updated_at = now()
       FROM (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND lease_expires_at IS NOT NULL AND lease_expires_at < now()
           AND pg_postmaster_start_time() < now() - CAST(:graceMs AS integer) * interval '1 millisecond'
         ORDER BY lease_expires_at
         LIMIT :limit
         FOR UPDATE SKIP LOCKED
       ) lapsed
       WHERE d.id = lapsed.id
       RETURNING d.id, d.webhook_endpoint_id, d.attempt_number`,
      { graceMs, limit },
    );
    return toJobRefs(result.rows);
  }

  async takeStalled(before: Date, now: Date, limit: number): Promise<DeliveryJobRef[]> {
    const result = await this.db.raw(
      `UPDATE webhook_deliveries d SET updated_at = :now
       FROM (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND updated_at < :before AND (next_retry_at IS NULL OR next_retry_at < :before)
         ORDER BY id
         LIMIT :limit
         FOR UPDATE SKIP LOCKED
       ) stalled
       WHERE d.id = stalled.id
       RETURNING d.id, d.webhook_endpoint_id, d.attempt_number`,
      { before, now, limit },
    );
    return toJobRefs(result.rows);
  }

  async recordFailure(failure: AttemptFailure): Promise<boolean> {
    const updated = await this.db('webhook_deliveries')
      .where({ id: failure.deliveryId, status: 'pending', attempt_number: failure.attempt - 1 })
      .update({
        status: failure.nextRetryAt === null ? 'failed' : 'pending',
        attempt_number: failure.attempt,
        first_attempt_at: this.db.raw('COALESCE(first_attempt_at, ?)', [failure.attemptedAt]),
        response_status: failure.status,
        response_body: failure.body,
        error_message: failure.error,
        last_attempt_at: failure.attemptedAt,
        next_retry_at: failure.nextRetryAt,
        updated_at: failure.finishedAt,
        // The next attempt is a job now: no lease to lapse into a second copy of it.
        lease_expires_at: null,
      });
    if (updated === 0) return false;
    await this.touchEndpoint(failure.endpointId, failure.status, failure.attemptedAt);
    return true;
  }
}
