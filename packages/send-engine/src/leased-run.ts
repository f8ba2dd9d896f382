import { ClaimQueue, type QueueEnd } from './claim-queue';
import { LeaseHold, startHeartbeat } from './lease-hold';
import type { LeasedWork, RunOptions, WorkItem } from './leased-work';
import { OutcomeFlusher } from './outcome-flusher';
import { MessageWithdrawn, type Timers } from './ports';
import { forUpTo, retrying } from './retrying';
import { watchStatus } from './status-watch';

/**
 * One job's turn at a run of leased work. Its claims share one lease, kept alive by a heartbeat
 * for as long as the run is open; `drain` works what can be claimed until the work is exhausted,
 * stopped, or the job is to hand over. Close it in a `finally`.
 */
export class LeasedRun<T extends WorkItem, O> {
  private readonly lease: LeaseHold;
  private readonly heartbeat: { stop(): void };

  constructor(
    private readonly work: LeasedWork<T, O>,
    private readonly options: RunOptions,
    private readonly timers: Timers,
  ) {
    this.lease = new LeaseHold(() => timers.now(), options.leaseMs);
    this.heartbeat = startHeartbeat(this.lease, options.leaseMs, () => work.extendLeases(options.worker, options.leaseMs), timers);
  }

  close(): void {
    this.heartbeat.stop();
  }

  /** A statement safe to repeat, tried again through a database outage of up to a lease. */
  persist<R>(statement: () => Promise<R>): Promise<R> {
    return retrying(
      statement,
      forUpTo(this.options.leaseMs, () => this.timers.now()),
      (ms) => this.timers.sleep(ms),
    );
  }

  /**
   * `concurrency` workers take items from the claim queue; each works one and waits for its
   * outcome to commit before taking the next, so at most `concurrency` messages are ever
   * sent-but-unrecorded. While the database is away those outcomes wait in memory and their
   * commit is tried again until it succeeds: the claims stay this job's (the heartbeat extends
   * them once the database is back), so nobody sends them again.
   */
  async drain(): Promise<QueueEnd> {
    const o = this.options;
    const { work, lease } = this;
    // A failed commit is tried again until the database has answered a heartbeat since the
    // group's first failure (it was away); after that, five more failures are an error of the
    // statement itself, and the job fails.
    let since = 0;
    let strikes = 0;
    const keepTrying = (_error: unknown, failures: number) => {
      if (failures === 1) [since, strikes] = [lease.time(), 0];
      return !lease.answeredSince(since) || ++strikes < 5;
    };
    const flusher = new OutcomeFlusher<O>((group) => work.record(group), o.commitGroup, this.timers, keepTrying);
    const queue = new ClaimQueue<T>(work, lease, {
      worker: o.worker,
      concurrency: o.concurrency,
      claimBatchSize: o.claimBatchSize,
      leaseMs: o.leaseMs,
      handOver: o.handOver,
      sleep: (ms) => this.timers.sleep(ms),
      // Progress moves once per claim, not per commit: counters stay out of the outcome
      // transactions (no lock shared by every dispatcher).
      afterClaim: async (settled) => {
        const progressed = settled + flusher.takeProcessed();
        if (progressed > 0) await work.progressed(progressed);
      },
    });

    // A stop (a pause, an abort), seen within `statusPollMs`: nothing more is handed out, and
    // the messages not yet started on a connection are withdrawn (docs/sending-reliability.md).
    // One signal per worker, all aborted together: a message's waits listen to its worker's
    // signal, so no signal holds the listeners of a hundred messages (Node warns past ten).
    const withdrawals = Array.from({ length: o.concurrency }, () => new AbortController());
    const watch = watchStatus(
      () => work.goesOn(),
      o.statusPollMs,
      () => {
        queue.stop('stopped');
        for (const withdrawal of withdrawals) withdrawal.abort();
      },
      this.timers,
    );

    // A worker that fails stops the others after their item in hand, so nothing is sent once
    // the job has given up (its claims then return after the lease).
    const worker = async (withdrawal: AbortController): Promise<void> => {
      try {
        for (let item = await queue.next(); item !== null; item = await queue.next()) {
          flusher.begin();
          let outcome: O;
          try {
            outcome = await work.perform(item, withdrawal.signal);
          } catch (error) {
            flusher.abandon();
            // Never started: its claim is released below, uncounted, like the rest not sent.
            if (error instanceof MessageWithdrawn) continue;
            throw error;
          }
          await flusher.push(outcome);
        }
      } catch (error) {
        queue.stop('stopped', error);
      }
    };
    try {
      await Promise.all(withdrawals.map(worker));
    } finally {
      watch.stop();
    }
    await queue.unsent();
    if (queue.error !== null) throw queue.error;
    // Every message sent has its outcome committed: what the job still holds was never sent
    // (including a claim whose answer was lost with the connection).
    await this.persist(() => work.release(o.worker));
    const progressed = flusher.takeProcessed();
    if (progressed > 0) await this.persist(() => work.progressed(progressed));
    return queue.ended ?? 'exhausted';
  }
}
