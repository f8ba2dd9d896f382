import type { EventType } from '@mailcast/domain';
import type { Page } from './entities/page';
import type { NewWebhookEndpoint, WebhookDelivery, WebhookEndpoint, WebhookEndpointChanges } from './entities/webhook';

export interface WebhookEndpointRepository {
  create(endpoint: NewWebhookEndpoint, now: Date): Promise<WebhookEndpoint>;
  /** Scoped to the channel; a deleted endpoint is null, as if it never existed. */
  findById(channelId: number, id: number): Promise<WebhookEndpoint | null>;
  /** Most recently created first. */
  list(channelId: number, page: Page): Promise<{ items: WebhookEndpoint[]; total: number }>;
  /** Null when the endpoint does not exist (or is deleted). */
  update(channelId: number, id: number, changes: WebhookEndpointChanges, now: Date): Promise<WebhookEndpoint | null>;
  /**
   * Soft-deletes the endpoint and cancels its pending deliveries in one statement set; false
   * when there was nothing to delete.
   */
  delete(channelId: number, id: number, now: Date): Promise<boolean>;
}

/** A delivery job, as the queue names it. */
export interface DeliveryJobRef {
  deliveryId: number;
  endpointId: number;
  attempt: number;
}

/** Everything one attempt needs, read when the attempt is claimed. */
export interface ClaimedAttempt {
  deliveryId: number;
  channelId: number;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  eventId: number;
  eventType: EventType;
  eventData: Record<string, unknown>;
  eventCreatedAt: Date;
  endpointId: number;
  url: string;
  secret: string;
  retriesToAttempt: number;
  firstAttemptAt: Date | null;
}

export interface AttemptSuccess {
  deliveryId: number;
  endpointId: number;
  attempt: number;
  status: number;
  body: string;
  attemptedAt: Date;
  finishedAt: Date;
}

export interface AttemptFailure {
  deliveryId: number;
  endpointId: number;
  attempt: number;
  status: number | null;
  body: string | null;
  error: string;
  attemptedAt: Date;
  finishedAt: Date;
  /** null: exhausted, the delivery is failed for good. */
  nextRetryAt: Date | null;
}

export interface WebhookDeliveryRepository {
  /** Newest first. */
  listForEndpoint(endpointId: number, page: Page): Promise<{ items: WebhookDelivery[]; total: number }>;
  findById(id: number): Promise<WebhookDelivery | null>;
  /**
   * The test operation: an event already marked dispatched (so the fan-out never sends it to
   * another endpoint) and its one delivery.
   */
  createTestDelivery(input: {
    channelId: number;
    endpointId: number;
    type: EventType;
    data: Record<string, unknown>;
    now: Date;
  }): Promise<{ eventId: number; delivery: WebhookDelivery }>;
  /**
   * Claims up to `limit` undispatched events (SKIP LOCKED, so dispatchers share the work),
   * marks them dispatched and creates one pending delivery per (event, live subscribing
   * endpoint), set-based and idempotent. Returns how many events were claimed and each new
   * delivery's first attempt, read as `claim` reads one (attempt 1). Each first attempt is
   * leased to the caller for `leaseMs` in database time: renewed while held, and re-queued by
   * `takeLapsed` should its holder die.
   */
  fanOut(limit: number, now: Date, leaseMs: number): Promise<{ events: number; attempts: ClaimedAttempt[] }>;
  /**
   * Renews the lease of first attempts held in memory: `leaseMs` more, in database time, for
   * those still pending; null clears it (the attempt is a job's now).
   */
  extendLeases(deliveryIds: readonly number[], leaseMs: number | null): Promise<void>;
  /**
   * Pending deliveries whose lease lapsed in database time, at most `limit`, their lease
   * cleared; each comes back as the job of its next attempt. None while the database itself
   * has been up for less than `graceMs`: after a restart, holders get that long to renew.
   */
  takeLapsed(graceMs: number, limit: number): Promise<DeliveryJobRef[]>;
  /**
   * Reads the attempts still due: the delivery is pending, its endpoint live and active, and
   * its attempt_number is exactly one below the job's, so a stale or duplicate job of an
   * attempt already recorded finds nothing. A read, not a lock: the attempt is written once,
   * with its outcome, guarded by the same attempt number, so two copies of one job may both
   * POST (the spec lets an event arrive more than once) but only one is recorded. Deliveries
   * whose endpoint was deactivated are cancelled on the way.
   */
  claim(jobs: readonly DeliveryJobRef[], now: Date): Promise<ClaimedAttempt[]>;
  recordSuccesses(successes: readonly AttemptSuccess[]): Promise<void>;
  /**
   * Pending deliveries nobody has touched since `before` and that wait for no retry time
   * after it (their job was lost to a crash, or expired while its dispatcher died), at most
   * `limit`, marked touched now; each comes back as the job of its next attempt.
   */
  takeStalled(before: Date, now: Date, limit: number): Promise<DeliveryJobRef[]>;
  /** False when the delivery is no longer that attempt (cancelled meanwhile): nothing follows. */
  recordFailure(failure: AttemptFailure): Promise<boolean>;
}

/** The delays between retries (WEBHOOK_RETRY_SCHEDULE, or the spec's default). */
export type WebhookRetrySchedule = readonly number[];
export const WebhookRetrySchedule = Symbol.for('mailcast.WebhookRetrySchedule');

export interface WebhookPost {
  url: string;
  /** POST unless given (a sequence's HTTP step may name another). */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent byte for byte as given: it is what the signature covers. */
  body: string;
  headers: Readonly<Record<string, string>>;
}

export type WebhookResult =
  { kind: 'response'; status: number; body: string } | { kind: 'failed'; reason: 'timeout' | 'refused_destination' | 'network'; message: string };

export interface WebhookSender {
  /** Never throws for network trouble: a time-out or refusal is a result, retried per schedule. */
  post(request: WebhookPost): Promise<WebhookResult>;
  /** At shutdown, after the last post: waits for the posts in flight and frees what the sender holds. */
  close?(): Promise<void>;
}
export const WebhookSender = Symbol.for('mailcast.WebhookSender');

/** Whether a webhook URL may be registered: HTTPS and a public destination (docs/webhooks.md). */
export interface WebhookDestinations {
  check(url: string): Promise<{ ok: true } | { ok: false; reason: string }>;
}
export const WebhookDestinations = Symbol.for('mailcast.WebhookDestinations');
