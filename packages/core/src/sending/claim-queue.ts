import type { LeaseHold } from './lease-hold';
import type { ClaimedRecipient, RecipientStore } from '../ports';
import { retrying } from './retrying';

export type QueueEnd = 'exhausted' | 'deadline' | 'stopped';

export interface ClaimQueueOptions {
  broadcastId: number;
  /** Names this job in its claims. */
  worker: string;
  /** The queue claims again when fewer than this many recipients wait. */
  concurrency: number;
  claimBatchSize: number;
  leaseMs: number;
  /** The application clock: when a delayed recipient's retry is due. */
  now(): Date;
  /** True once the job should hand its remaining work to a fresh job (slice over, shutdown). */
  handOver(): boolean;
  /** After each claim, with the count of claimed recipients the claim itself skipped (unsendable). */
  afterClaim(skipped: number): Promise<void>;
}

/**
 * The recipients one job sends, claimed ahead in batches under its lease. Workers take them one
 * at a time with `next()`; a claim runs in the background when the queue runs low. A claim that
 * fails (the database away) is tried again while the lease can still be proven, so a short
 * outage only pauses the job. Nothing more is handed out once the lease may have lapsed: the
 * claims may be another dispatcher's by then.
 */
export class ClaimQueue {
  private readonly local: ClaimedRecipient[] = [];
  private claiming: Promise<void> | null = null;
  private endedAs: QueueEnd | null = null;
  private failure: unknown = null;
  // Where the next claim starts: past what this job claimed last, until that finds nothing.
  private cursor = 0;

  constructor(
    private readonly recipients: RecipientStore,
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

  /** The next recipient to send, or null when the job is to send nothing more. */
  async next(): Promise<ClaimedRecipient | null> {
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

  /** Waits for a claim under way; answers the claimed recipients that were never handed out. */
  async unsent(): Promise<ClaimedRecipient[]> {
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
    const current = await this.whileLeaseHolds(() => this.recipients.findBroadcast(o.broadcastId));
    if (current === null || current.status !== 'sending') {
      this.endedAs = 'stopped';
      return;
    }
    let claimed = await this.claimFrom(this.cursor);
    if (claimed.length === 0 && this.cursor > 0) {
      // The rest of the list is done or held by others: what came due behind the cursor (a
      // retry, another worker's lapsed lease) is claimed from the start.
      this.cursor = 0;
      claimed = await this.claimFrom(0);
    }
    if (claimed.length === 0) {
      this.endedAs = 'exhausted';
      return;
    }
    this.cursor = claimed[claimed.length - 1]!.id;
    const skipped = claimed.filter((c) => !c.sendable).length;
    for (const c of claimed) if (c.sendable) this.local.push(c);
    await this.whileLeaseHolds(() => this.options.afterClaim(skipped));
  }

  private async claimFrom(afterId: number): Promise<ClaimedRecipient[]> {
    const o = this.options;
    return this.whileLeaseHolds(async () => {
      const sentAt = this.lease.time();
      const claimed = await this.recipients.claim(o.broadcastId, o.worker, o.now(), o.leaseMs, o.claimBatchSize, afterId);
      this.lease.claimed(sentAt);
      return claimed;
    });
  }

  /** A statement tried again through an outage, while the claims already made are still proven. */
  private whileLeaseHolds<T>(work: () => Promise<T>): Promise<T> {
    return retrying(work, () => this.lease.holds() && !this.options.handOver());
  }
}
