/**
 * Job names and payload types shared by the api (which enqueues) and the dispatcher (which
 * works). Payloads carry ids and a version, never whole records: the handler reloads state.
 *
 * Later capabilities add their queues here; `QUEUES` is what `npm run migrate` creates.
 */
export interface JobPayloads {
  /**
   * One attempt of one webhook delivery. `attempt` is the attempt's number (1 = first), so a
   * duplicate or stale job finds the row already past it and does nothing; `endpointId` lets
   * the dispatcher bound per-endpoint concurrency before loading anything.
   */
  'webhooks.deliver': { deliveryId: number; endpointId: number; attempt: number };
  /** Send the double opt-in email of one confirmation request; `attempt` counts from 1. */
  'subscribers.confirmation': { confirmationId: number; attempt?: number };
  /** A scheduled broadcast's time has come: move it from future_scheduled on (if `version` still holds). */
  'broadcasts.due': { broadcastId: number; version: number };
  /** Drive a broadcast through queueing and sending; any number of dispatchers may work one. */
  'broadcasts.send': { broadcastId: number };
  /** Decide a subject test's winner and release the rest of the list (docs/subject-tests.md). */
  'broadcasts.ab_decide': { broadcastId: number };
  /**
   * Send one transactional email; its own queue and worker, ahead of broadcast traffic.
   * `attempt` counts from 1 (absent: 1); a temporary failure enqueues the next one.
   */
  'transactionals.send': { transactionalId: number; attempt?: number; deferrals?: number };
}

export type JobName = keyof JobPayloads;

export const QUEUES: readonly JobName[] = [
  'webhooks.deliver',
  'broadcasts.due',
  'broadcasts.send',
  'subscribers.confirmation',
  'transactionals.send',
  'broadcasts.ab_decide',
];

/**
 * Queues whose jobs carry a singleton key: pg-boss's `short` policy keeps at most one job of a key
 * waiting (a second send of the same key is dropped), so a decision is enqueued once per broadcast.
 */
export const SINGLETON_QUEUES: readonly JobName[] = ['broadcasts.ab_decide'];

/**
 * Queues earlier versions created and no longer use; `npm run migrate` removes them, with any
 * pg-boss cron schedule of theirs. 'broadcasts.sweep' was the due-broadcast safety net on
 * pg-boss cron; the dispatcher's own sweep timer does it now.
 */
export const RETIRED_QUEUES: readonly string[] = ['broadcasts.sweep'];
