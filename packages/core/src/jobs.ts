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
}

export type JobName = keyof JobPayloads;

export const QUEUES: readonly JobName[] = ['webhooks.deliver'];
