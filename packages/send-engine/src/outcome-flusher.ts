import type { Cancel, Timers } from './ports';
import { retrying } from './retrying';

/** When a group of outcomes is committed (SendingOptions.commitGroup). */
export interface CommitGroupOptions {
  /** Commit once this many outcomes wait. */
  size: number;
  /** The longest a waiting outcome waits for company while other messages are still in flight. */
  maxWaitMs: number;
}

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit of send outcomes. Every commit costs about the same whatever its size (one
 * statement, one round trip, one WAL flush), so outcomes wait for company: a group goes when
 * `size` outcomes wait, when no other message is in flight (nothing more would come), or after
 * `maxWaitMs`. One commit runs at a time; what arrives meanwhile joins the next group.
 */
export class OutcomeFlusher<T> {
  private waiting: Array<Waiting<T>> = [];
  private committing = false;
  private inFlight = 0;
  private timer: Cancel | null = null;
  private processed = 0;

  constructor(
    /** Writes one group; answers how many of its recipients reached a final status. */
    private readonly write: (group: readonly T[]) => Promise<number>,
    private readonly options: CommitGroupOptions,
    private readonly timers: Timers,
    /**
     * Whether a failed commit is tried again (after the `failures`-th failure). By default five
     * attempts; the sending job keeps trying for as long as the database is away.
     */
    private readonly keepTrying: (error: unknown, failures: number) => boolean = (_error, failures) => failures < 5,
  ) {}

  /** A message is on its way: its outcome will follow, so a small group may wait for it. */
  begin(): void {
    this.inFlight++;
  }

  /** A message begun ended without an outcome to record. */
  abandon(): void {
    this.inFlight--;
    this.schedule();
  }

  /** Records the outcome of a message begun; settles once its group has committed. */
  push(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.inFlight--;
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Recipients brought to a final status since the last call. */
  takeProcessed(): number {
    const n = this.processed;
    this.processed = 0;
    return n;
  }

  private schedule(): void {
    if (this.committing || this.waiting.length === 0) return;
    if (this.waiting.length >= this.options.size || this.inFlight <= 0) {
      this.cancelTimer();
      void this.commitWaiting();
      return;
    }
    this.timer ??= this.timers.after(this.options.maxWaitMs, () => {
      this.timer = null;
      if (!this.committing && this.waiting.length > 0) void this.commitWaiting();
    });
  }

  private cancelTimer(): void {
    this.timer?.();
    this.timer = null;
  }

  private async commitWaiting(): Promise<void> {
    this.committing = true;
    const group = this.waiting;
    this.waiting = [];
    try {
      const processed = await this.commit(group.map((w) => w.item));
      // Added after the await: `x += await y` would read x before, losing a concurrent take.
      this.processed += processed;
      for (const w of group) w.resolve();
    } catch (error) {
      for (const w of group) w.reject(error);
    }
    this.committing = false;
    this.schedule();
  }

  /**
   * These messages are already with the SMTP server: a lost commit would mean sending them
   * again, so a failed commit (a deadlock, a dropped connection, the database away) is tried
   * again while `keepTrying` allows.
   */
  private commit(items: readonly T[]): Promise<number> {
    return retrying(
      () => this.write(items),
      this.keepTrying,
      (ms) => this.timers.sleep(ms),
    );
  }
}
