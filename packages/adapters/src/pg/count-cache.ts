import type { SubscriberFilter } from '@mailcast/core';
import type { Knex } from 'knex';

/**
 * The audience's change counter as it stands now: a value that every statement changing
 * subscribers, and every first open or click, moves on (migration `audience_changes`).
 */
export type ChangeCounter = () => Promise<string>;

/** The counter of migration 2026112608000001: the `audience_changes` sequence, read fresh each time. */
export function audienceChanges(db: Knex): ChangeCounter {
  return async () => {
    const { rows } = await db.raw<{ rows: Array<{ at: string }> }>(`SELECT last_value || '/' || is_called AS at FROM audience_changes`);
    return rows[0]?.at ?? '';
  };
}

/** The results kept for the audience as it stands at one reading of its change counter. */
export interface Kept<T> {
  get(key: string, compute: () => Promise<T>, recomputeUpTo?: number): Promise<T>;
  known(key: string): T | undefined;
  remember(key: string, value: T): void;
}

/** Kept counts (subscriber-list totals, segments' subscribers_count). */
export type KeptCounts = Kept<number>;

interface Entry<T> {
  value: Promise<T>;
  expiresAt: number;
  settled?: { value: T };
  /** What the entry counts against the budget: 1 while it runs, then its value's weight. */
  weight: number;
}

/** How a kept value is measured: `size` for the recompute rule, `weigh` against the budget. */
export interface Measures<T> {
  size: (value: T) => number;
  weigh: (value: T) => number;
}

/**
 * Results kept for a short time: exact counts (`CountCache`) and a list filter's matching ids
 * (docs/subscribers.md, "List totals" and "Kept matches"; docs/segments.md). A broad filter's count or matches visit most
 * of its matching rows, which at a million subscribers is hundreds of milliseconds; computed once
 * per key and time-to-live instead of once per request, a page costs only its page. Callers that
 * ask for a key being computed share that one computation, so a burst of identical requests runs
 * one query, not one each. A failed computation is not kept. The kept values' total weight is
 * bounded (`maxWeight`); the oldest go first.
 *
 * With a change counter, results are kept per reading of it (`current()`): a result taken before
 * a committed change is never served after it, and the time-to-live only bounds what the counter
 * cannot see (a change that commits while the query runs, docs/segments.md).
 */
export class KeptResults<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private weight = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxWeight: number,
    private readonly measures: Measures<T>,
    private readonly now: () => number = Date.now,
    private readonly changes: ChangeCounter = async () => '',
  ) {}

  /** The results kept for the audience as it is now (one read of the change counter). */
  async current(): Promise<Kept<T>> {
    return this.at(await this.changes());
  }

  /** The results kept for the audience at `reading`, a value of the change counter already read. */
  at(reading: string): Kept<T> {
    const at = `${reading}|`;
    return {
      get: (key, compute, recomputeUpTo) => this.get(at + key, compute, recomputeUpTo),
      known: (key) => this.known(at + key),
      remember: (key, value) => this.remember(at + key, value),
    };
  }

  /**
   * The kept value of `key`, or `compute()`'s, kept for the time-to-live (0: never kept). A kept
   * value whose size is `recomputeUpTo` or less is computed again: a small result is cheap to
   * find, so it is always current; only large ones are reused. One still running is shared.
   */
  get(key: string, compute: () => Promise<T>, recomputeUpTo = -1): Promise<T> {
    const at = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > at && (entry.settled === undefined || this.measures.size(entry.settled.value) > recomputeUpTo)) {
      return entry.value;
    }
    if (this.ttlMs <= 0) return compute();
    const value = compute();
    this.put(key, value, at);
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.drop(key);
    });
    return value;
  }

  /** The kept value of `key` when one has been computed and is still fresh, without computing. */
  known(key: string): T | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > this.now() ? entry.settled?.value : undefined;
  }

  /** A value known exactly by other means (a page that proves its total) replaces the kept one. */
  remember(key: string, value: T): void {
    if (this.ttlMs > 0) this.put(key, Promise.resolve(value), this.now(), value);
  }

  private put(key: string, value: Promise<T>, at: number, settled?: T): void {
    this.drop(key);
    // Oldest first: a Map iterates in insertion order, and every put re-inserts its key, so the
    // expired ones are at the front.
    for (const [k, e] of this.entries) {
      if (e.expiresAt > at && this.weight < this.maxWeight) break;
      this.drop(k);
    }
    const entry: Entry<T> = { value, expiresAt: at + this.ttlMs, weight: 1 };
    this.entries.set(key, entry);
    this.weight += 1;
    const settle = (v: T) => {
      entry.settled = { value: v };
      if (this.entries.get(key) !== entry) return;
      const weight = Math.max(1, this.measures.weigh(v));
      this.weight += weight - entry.weight;
      entry.weight = weight;
      for (const k of this.entries.keys()) {
        if (this.weight <= this.maxWeight || k === key) break;
        this.drop(k);
      }
    };
    if (settled !== undefined) settle(settled);
    else value.then(settle, () => undefined);
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
}

/** Exact counts kept for a short time, at most `maxEntries` of them (see KeptResults). */
export class CountCache extends KeptResults<number> {
  constructor(ttlMs: number, maxEntries = 1000, now: () => number = Date.now, changes?: ChangeCounter) {
    super(ttlMs, maxEntries, { size: (n) => n, weigh: () => 1 }, now, changes);
  }
}

/** One key per channel and filter meaning: tag order and the fragment's case do not matter. */
export function listCountKey(channelId: number, filter: SubscriberFilter): string {
  const customData = filter.customData === undefined ? undefined : Object.entries(filter.customData).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    channelId,
    filter.isActive,
    filter.source,
    filter.emailContains?.toLowerCase(),
    filter.confirmationStatus,
    filter.createdAfter?.toISOString(),
    filter.createdBefore?.toISOString(),
    filter.tags === undefined ? undefined : [...new Set(filter.tags)].sort(),
    customData,
  ]);
}
