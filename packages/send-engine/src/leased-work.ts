import type { CommitGroupOptions } from './outcome-flusher';

/** One unit of leased work: a broadcast recipient, a sequence enrolment's step. */
export interface WorkItem {
  id: number;
}

/** What one claim statement took: the items to work, and those it settled by itself. */
export interface Claim<T extends WorkItem> {
  items: T[];
  /** Claimed items the claim itself brought to an end (nothing to send): they count as progress. */
  settled: number;
  /** The highest id the claim took, settled ones included; null when it took none. */
  lastId: number | null;
}

/**
 * What a use case gives the engine to run (docs/sending-reliability.md): work kept in the
 * database, claimed in batches under a lease, each item worked by one job at a time and its
 * outcome committed in groups. Every statement here must be safe to repeat: the engine tries
 * them again through a database outage.
 */
export interface LeasedWork<T extends WorkItem, O> {
  /** Whether the run may go on (the broadcast still sending): asked before each claim and every poll. */
  goesOn(): Promise<boolean>;
  /** Claims up to `limit` items past `afterId` (by id) for `worker`, each leased for `leaseMs`. */
  claim(request: { worker: string; afterId: number; limit: number; leaseMs: number }): Promise<Claim<T>>;
  /** Extends every lease `worker` holds by `leaseMs` (the heartbeat). */
  extendLeases(worker: string, leaseMs: number): Promise<unknown>;
  /** Gives back what `worker` still holds: it was never worked. */
  release(worker: string): Promise<unknown>;
  /**
   * Works one item (renders and sends its message). Rejects with MessageWithdrawn when
   * `signal` aborts before the message started: the item then returns to the queue, uncounted.
   */
  perform(item: T, signal: AbortSignal): Promise<O>;
  /** Commits a group of outcomes; answers how many of the items reached a final state. */
  record(group: readonly O[]): Promise<number>;
  /** Items brought to an end since the last call (progress counters); repeated on failure. */
  progressed(count: number): Promise<void>;
}

/** How one job works its share of a run. */
export interface RunOptions {
  /** Names this job in its claims. */
  worker: string;
  /** Items in flight at once: being worked, or their outcome waiting for its commit. */
  concurrency: number;
  claimBatchSize: number;
  /** How long a claim lives without a heartbeat, in database time. */
  leaseMs: number;
  /** How often `goesOn` is asked while the job works. */
  statusPollMs: number;
  commitGroup: CommitGroupOptions;
  /** True once the job should hand its remaining work to a fresh job (slice over, shutdown). */
  handOver(): boolean;
}
