import type { Timers } from './ports';

/**
 * How long one job's claims are known to last (docs/sending-reliability.md). A claim sets a
 * lease of `leaseMs` in database time; each heartbeat that commits extends every claim of the
 * job. The database's clock starts a lease no earlier than the moment the statement was sent,
 * so a lease is proven for `leaseMs` of this process's time counted from that moment: the
 * comparison needs no agreement between the clocks of the dispatchers and the database.
 *
 * The oldest lease dates from the first claim or the last confirmed heartbeat, whichever is
 * later. While the database is away nothing is confirmed, and the proof runs out on its own.
 */
export class LeaseHold {
  private confirmedAt: number | null = null;
  private answeredAt = -Infinity;

  constructor(
    private readonly now: () => number,
    private readonly leaseMs: number,
  ) {}

  /** The present on the clock the lease is measured with: stamp a statement before sending it. */
  time(): number {
    return this.now();
  }

  /** A claim statement sent at `at` committed (only the first claim dates the oldest lease). */
  claimed(at: number): void {
    this.confirmedAt ??= at;
  }

  /** A heartbeat sent at `at` committed: every claim of the job lasts a lease from then. */
  confirm(at: number): void {
    this.answeredAt = Math.max(this.answeredAt, at);
    if (this.confirmedAt !== null && at > this.confirmedAt) this.confirmedAt = at;
  }

  /** Whether a heartbeat sent at `at` or later committed: the database answered since then. */
  answeredSince(at: number): boolean {
    return this.answeredAt >= at;
  }

  /**
   * Whether a message may still be started: the lease must outlast it with a third of a lease
   * to spare, for the send and the commit of its outcome.
   */
  holds(): boolean {
    return this.confirmedAt === null || this.now() < this.confirmedAt + this.leaseMs - this.leaseMs / 3;
  }

  /** Whether the claims are provably still this job's (no margin kept for a new message). */
  proven(): boolean {
    return this.confirmedAt === null || this.now() < this.confirmedAt + this.leaseMs;
  }

  /** How often to send a heartbeat: several per lease, so an outage of most of a lease is survived. */
  static heartbeatMs(leaseMs: number): number {
    return Math.max(50, Math.min(5_000, Math.floor(leaseMs / 6)));
  }
}

/**
 * Extends the job's leases every `LeaseHold.heartbeatMs`, one statement at a time (a heartbeat
 * that hangs while the database is away does not pile up others behind it).
 */
export function startHeartbeat(lease: LeaseHold, leaseMs: number, extend: () => Promise<unknown>, timers: Timers): { stop(): void } {
  let busy = false;
  const stop = timers.every(LeaseHold.heartbeatMs(leaseMs), () => {
    if (busy) return;
    busy = true;
    const at = lease.time();
    extend()
      .then(
        () => lease.confirm(at),
        // The database is away: the leases run out on their own unless a later one commits.
        () => undefined,
      )
      .finally(() => (busy = false));
  });
  return { stop };
}
