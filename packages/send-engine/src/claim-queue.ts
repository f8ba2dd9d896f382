import type { LeaseHold } from './lease-hold';
import type { Claim, LeasedWork, WorkItem } from './leased-work';
import { retrying } from './retrying';

export type QueueEnd = 'exhausted' | 'deadline' | 'stopped';

export interface ClaimQueueOptions {
  /** Names this job in its claims. */
  worker: string;
  /** The queue claims again when fewer than this many recipients wait. */
  concurrency: number;
  claimBatchSize: number;
  leaseMs: number;
  /** True once the job should hand its remaining work to a fresh job (slice over, shutdown). */
  handOver(): boolean;
  /** After each claim, with the count of items the claim itself settled. */
  afterClaim(settled: number): Promise<void>;
  /** Waits between the tries of a statement through an outage. */
  sleep(ms: number): Promise<void>;
}

/**
 * The items one job works, claimed ahead in batches under its lease. Workers take them one
 * at a time with `next()`; a claim runs in the background when the queue runs low. A claim that
 * fails (the database away) is tried again while the lease can still be proven, so a short
 * outage only pauses the job. Nothing more is handed out once the lease may have lapsed: the
 * claims may be another dispatcher's by then.
 */
export class ClaimQueue<T extends WorkItem> {
  private readonly local: T[] = [];
  private claiming: Promise<void> | null = null;
  private endedAs: QueueEnd | null = null;
  private failure: unknown = null;
  // Where the next claim starts: past what this job claimed last, until that finds nothing.
  private cursor = 0;

  constructor(
    private readonly work: LeasedWork<T, unknown>,
    private readonly lease: LeaseHold,
    private readonly options: ClaimQueueOptions,
  ) {}

  /** Why the queue ended, once it has. */
  get ended(): QueueEnd | null {
    return this.endedAs;
  }

  /** The error that stopped the queue, if one did. */
  get error(): unknown {
    return this.failure;
  }

  /** Ends the queue: what waits in it is not handed out (a worker failed, a pause). */
  stop(reason: QueueEnd, error?: unknown): void {
    this.endedAs ??= reason;
    if (error !== undefined) this.failure ??= error;
  }

  /** The next item to work, or null when the job is to work no more. */
  async next(): Promise<T | null> {
    while (this.local.length === 0 && this.endedAs === null) await this.startClaim();
    if (this.endedAs === 'stopped' || this.endedAs === 'deadline') return null;
    if (!this.lease.holds()) {
      this.endedAs = 'deadline';
      return null;
    }
    const recipient = this.local.shift() ?? null;
    if (this.local.length < this.options.concurrency && this.endedAs === null && this.claiming === null) void this.startClaim();
    return recipient;
  }

  /** Waits for a claim under way; answers the claimed items that were never handed out. */
  async unsent(): Promise<T[]> {
    if (this.claiming) await this.claiming;
    return this.local.splice(0);
  }

  private startClaim(): Promise<void> {
    return (this.claiming ??= this.claim()
      .catch((error: unknown) => this.stop('stopped', error))
      .finally(() => {
        this.claiming = null;
      }));
  }

  private async claim(): Promise<void> {
    const o = this.options;
    if (o.handOver()) {
      this.endedAs = 'deadline';
      return;
    }
    if (!(await this.whileLeaseHolds(() => this.work.goesOn()))) {
      this.endedAs = 'stopped';
      return;
    }
    let claimed = await this.claimFrom(this.cursor);
    if (claimed.lastId === null && this.cursor > 0) {
      // The rest of the list is done or held by others: what came due behind the cursor (a
      // retry, another worker's lapsed lease) is claimed from the start.
      this.cursor = 0;
      claimed = await this.claimFrom(0);
    }
    if (claimed.lastId === null) {
      this.endedAs = 'exhausted';
      return;
    }
    this.cursor = claimed.lastId;
    this.local.push(...claimed.items);
    await this.whileLeaseHolds(() => this.options.afterClaim(claimed.settled));
  }

  private claimFrom(afterId: number): Promise<Claim<T>> {
    const o = this.options;
    return this.whileLeaseHolds(async () => {
      const sentAt = this.lease.time();
      const claimed = await this.work.claim({ worker: o.worker, afterId, limit: o.claimBatchSize, leaseMs: o.leaseMs });
      this.lease.claimed(sentAt);
      return claimed;
    });
  }

  /** A statement tried again through an outage, while the claims already made are still proven. */
  private whileLeaseHolds<R>(work: () => Promise<R>): Promise<R> {
    return retrying(work, () => this.lease.holds() && !this.options.handOver(), this.options.sleep);
  }
}
