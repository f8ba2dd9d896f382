/**
 * The per-second limit as permits, the guarantee behind it (docs/sending-limits.md).
 *
 * A receiving server notes a message somewhere between the instant the sender started it and the
 * instant the sender got the answer. So a message may count in any one-second window that meets
 * [start, answer]; equivalently, it occupies [start, answer + 1 s]. If at every instant at most L
 * messages occupy it, no one-second window at the server holds more than L, however late the
 * sender or the server runs. A message starts no earlier than its slot, so each dispatcher holds a
 * permit per message from its slot's instant until one second after its answer; permits are
 * counted for every dispatcher together in the shared state.
 *
 * Times are milliseconds on the database's clock; nothing here reads a clock.
 */

/** One dispatcher's permits, as it last wrote them. */
export interface SendHolds {
  /** The slot instants of messages not yet answered or given up: each held from its instant on. */
  opens: number[];
  /** The owner's lease: its open permits count until then (a dead dispatcher's lapse). */
  until: number;
  /** Instants at which answered messages free their permit: one second after their answer. */
  releases: number[];
}

export type HoldsByOwner = Readonly<Record<string, SendHolds>>;

/**
 * A permit is held this long after the answer: a second, and a millisecond for clocks that read
 * whole milliseconds (an answer read at t may have come just before t + 1).
 */
export const PERMIT_HOLD_MS = 1001;
/** Open permits of a dispatcher count this long after its last write, then lapse. */
export const HOLD_LEASE_MS = 30_000;

/**
 * How many permits are held at each instant from a given one on, as a step function: for any
 * instant x, the most permits held at any instant at or after x. A new slot at x holds its permit
 * from x until an answer nobody knows yet, so it fits only where that most is below the limit.
 */
export class PermitProfile {
  /** Instants where the count changes, ascending; segment i runs from starts[i] to starts[i + 1]. */
  private readonly starts: number[];
  /** The most permits held at any instant of segment i or later: never rises with i. */
  private readonly most: number[];

  constructor(holds: HoldsByOwner) {
    // Each permit occupies [from, to): open ones from their slot until the owner's lease, answered
    // ones (whose slot is gone) until their release.
    const changes = new Map<number, number>();
    let before = 0;
    const add = (at: number, delta: number) => changes.set(at, (changes.get(at) ?? 0) + delta);
    for (const h of Object.values(holds)) {
      for (const from of h.opens) {
        if (from >= h.until) continue;
        add(from, 1);
        if (Number.isFinite(h.until)) add(h.until, -1);
      }
      for (const to of h.releases) {
        before++;
        add(to, -1);
      }
    }
    this.starts = [...changes.keys()].sort((a, b) => a - b);
    const counts = [before];
    for (const at of this.starts) counts.push(counts.at(-1)! + changes.get(at)!);
    // counts[0] is before the first change; counts[i + 1] from starts[i] on.
    this.most = counts.slice();
    for (let i = this.most.length - 2; i >= 0; i--) this.most[i] = Math.max(this.most[i]!, this.most[i + 1]!);
  }

  /** The most permits held at any instant at or after `at`. */
  heldFrom(at: number): number {
    return this.most[this.segment(at)]!;
  }

  /**
   * The first instant at or after `at` from which `taken` more permits (held from there on) keep
   * the count within `limit` everywhere; null: none comes until an open permit is answered.
   */
  firstFree(at: number, taken: number, limit: number): number | null {
    for (let i = this.segment(at); i < this.most.length; i++) {
      if (this.most[i]! + taken < limit) return i === 0 ? at : Math.max(at, this.starts[i - 1]!);
    }
    return null;
  }

  /** The segment holding `at`: 0 before the first change, i + 1 from starts[i] on. */
  private segment(at: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The holds of every other owner still in force at `now`. */
export function othersHolds(holds: HoldsByOwner, owner: string, now: number): Record<string, SendHolds> {
  const kept: Record<string, SendHolds> = {};
  for (const [id, h] of Object.entries(holds)) {
    if (id === owner) continue;
    const releases = h.releases.filter((r) => r > now);
    const opens = h.until > now ? h.opens : [];
    if (opens.length > 0 || releases.length > 0) kept[id] = { opens, until: h.until, releases };
  }
  return kept;
}

/** A dispatcher's own permits as it knows them: the slots of its open messages and its future releases. */
export interface Holder {
  id: string;
  opens: readonly number[];
  releases: readonly number[];
}

/** The holds with `holder`'s written as of `now` (leased until now + HOLD_LEASE_MS), others pruned. */
export function withHolds(holds: HoldsByOwner, holder: Holder, now: number): Record<string, SendHolds> {
  const kept = othersHolds(holds, holder.id, now);
  const releases = holder.releases.filter((r) => r > now);
  if (holder.opens.length > 0 || releases.length > 0) kept[holder.id] = { opens: [...holder.opens], until: now + HOLD_LEASE_MS, releases };
  return kept;
}
