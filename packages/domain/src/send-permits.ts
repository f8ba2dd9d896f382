/**
 * The per-second limit as permits, the guarantee behind it (docs/sending-limits.md).
 *
 * A receiving server notes a message somewhere between the instant the sender started it and the
 * instant the sender got the answer. So a message may count in any one-second window that meets
 * [start, answer]; equivalently, it occupies [start, answer + 1 s]. If at every instant at most L
 * messages occupy it, no one-second window at the server holds more than L, however late the
 * sender or the server runs. Each dispatcher holds a permit per message from its slot (no later
 * than its start) until one second after its answer; permits are counted for every dispatcher
 * together in the shared state.
 *
 * Times are milliseconds on the database's clock; nothing here reads a clock.
 */

/** One dispatcher's permits, as it last wrote them. */
export interface SendHolds {
  /** Messages given a slot and not yet answered or given up: held until the answer is written. */
  open: number;
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

const countAt = (h: SendHolds, at: number, openUntil: number) => (openUntil > at ? h.open : 0) + h.releases.filter((r) => r > at).length;

/** Permits held at `at` by the owners of `holds`. */
export function permitsHeld(holds: HoldsByOwner, at: number): number {
  return Object.values(holds).reduce((n, h) => n + countAt(h, at, h.until), 0);
}

/**
 * The first instant after `at` when an answered message's permit frees; null: none is known
 * (open permits free when their answer is written, or when their owner's lease lapses).
 */
export function nextPermitFree(holds: HoldsByOwner, at: number): number | null {
  let next: number | null = null;
  for (const h of Object.values(holds)) {
    for (const t of h.releases) {
      if (t > at && (next === null || t < next)) next = t;
    }
  }
  return next;
}

/** The holds of every other owner still in force at `now`. */
export function othersHolds(holds: HoldsByOwner, owner: string, now: number): Record<string, SendHolds> {
  const kept: Record<string, SendHolds> = {};
  for (const [id, h] of Object.entries(holds)) {
    if (id === owner) continue;
    const releases = h.releases.filter((r) => r > now);
    const open = h.until > now ? h.open : 0;
    if (open > 0 || releases.length > 0) kept[id] = { open, until: h.until, releases };
  }
  return kept;
}

/** A dispatcher's own permits as it knows them: its open messages and its future releases. */
export interface Holder {
  id: string;
  open: number;
  releases: readonly number[];
}

/** The holds with `holder`'s written as of `now` (leased until now + HOLD_LEASE_MS), others pruned. */
export function withHolds(holds: HoldsByOwner, holder: Holder, now: number): Record<string, SendHolds> {
  const kept = othersHolds(holds, holder.id, now);
  const releases = holder.releases.filter((r) => r > now);
  if (holder.open > 0 || releases.length > 0) kept[holder.id] = { open: holder.open, until: now + HOLD_LEASE_MS, releases };
  return kept;
}
