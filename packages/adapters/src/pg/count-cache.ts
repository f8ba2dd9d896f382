import type { SubscriberFilter } from '@mailcast/core';
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';

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
 * bounded (`maxWeight`); the least recently used go first, and a value heavier than the whole
 * budget is not kept. The store is lru-cache's.
 *
 * With a change counter, results are kept per reading of it (`current()`): a result taken before
 * a committed change is never served after it, and the time-to-live only bounds what the counter
 * cannot see (a change that commits while the query runs, docs/segments.md).
 */
export class KeptResults<T> {
  private readonly entries: LRUCache<string, Entry<T>> | null;

  constructor(
    ttlMs: number,
    maxWeight: number,
    private readonly measures: Measures<T>,
    now: () => number = Date.now,
    private readonly changes: ChangeCounter = async () => '',
  ) {
    // lru-cache serves an entry until its age exceeds `ttl`; a value is kept for less than
    // `ttlMs` (at most the time-to-live, never at it), so the last millisecond is not lru-cache's.
    const ttl = ttlMs - 1;
    // It also reads an entry set at instant 0 as one without a time-to-live, which a test clock
    // starting at 0 would hit: its clock is ours, one second on (ages are the same).
    const perf = { now: () => now() + 1_000 };
    this.entries = ttl > 0 ? new LRUCache<string, Entry<T>>({ ttl, ttlResolution: 0, maxSize: maxWeight, sizeCalculation: (e) => e.weight, perf }) : null;
  }

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
    const entries = this.entries;
    if (entries === null) return compute();
    const entry = entries.get(key);
    if (entry !== undefined && (entry.settled === undefined || this.measures.size(entry.settled.value) > recomputeUpTo)) {
      return entry.value;
    }
    const value = compute();
    this.put(entries, key, value);
    value.catch(() => {
      if (entries.peek(key)?.value === value) entries.delete(key);
    });
    return value;
  }

  /** The kept value of `key` when one has been computed and is still fresh, without computing. */
  known(key: string): T | undefined {
    return this.entries?.peek(key)?.settled?.value;
  }

  /** A value known exactly by other means (a page that proves its total) replaces the kept one. */
  remember(key: string, value: T): void {
    if (this.entries !== null) this.put(this.entries, key, Promise.resolve(value), value);
  }

  private put(entries: LRUCache<string, Entry<T>>, key: string, value: Promise<T>, settled?: T): void {
    const entry: Entry<T> = { value, weight: 1 };
    entries.delete(key);
    entries.set(key, entry);
    const settle = (v: T) => {
      entry.settled = { value: v };
      if (entries.peek(key) !== entry) return;
      // Weighed again once known (a new entry: lru-cache sizes a value when it changes); its
      // time-to-live still counts from the computation's start.
      entries.set(key, { ...entry, weight: Math.max(1, this.measures.weigh(v)) }, { noUpdateTTL: true });
    };
    if (settled !== undefined) settle(settled);
    else value.then(settle, () => undefined);
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
