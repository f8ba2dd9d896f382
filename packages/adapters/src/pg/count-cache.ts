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

/** The counts kept for the audience as it stands at one reading of its change counter. */
export interface KeptCounts {
  get(key: string, count: () => Promise<number>, recountUpTo?: number): Promise<number>;
  known(key: string): number | undefined;
  remember(key: string, total: number): void;
}

/**
 * Exact counts kept for a short time: subscriber-list totals (docs/subscribers.md, "List
 * totals") and segments' subscribers_count (docs/segments.md). A broad filter's count visits most
 * of its matching rows, which at a million subscribers is hundreds of milliseconds; counted once
 * per filter and time-to-live instead of once per request, a page of it costs only its page query. Callers that ask for a key whose
 * count is being computed share that one computation, so a burst of identical requests sends
 * one count, not one each. A failed count is not kept.
 *
 * With a change counter, counts are kept per reading of it (`current()`): a count taken before a
 * committed change is never served after it, and the time-to-live only bounds what the counter
 * cannot see (a change that commits while the count runs, docs/segments.md).
 */
export class CountCache {
  private readonly entries = new Map<string, { value: Promise<number>; expiresAt: number; settled?: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1000,
    private readonly now: () => number = Date.now,
    private readonly changes: ChangeCounter = async () => '',
  ) {}

  /** The counts kept for the audience as it is now (one read of the change counter). */
  async current(): Promise<KeptCounts> {
    const at = `${await this.changes()}|`;
    return {
      get: (key, count, recountUpTo) => this.get(at + key, count, recountUpTo),
      known: (key) => this.known(at + key),
      remember: (key, total) => this.remember(at + key, total),
    };
  }

  /**
   * The kept count of `key`, or `count()`'s, kept for the time-to-live (0: never kept). A kept
   * count of `recountUpTo` or fewer is counted again: a small total is cheap to count, so it is
   * always current; only large ones are reused. A count still running is shared, whatever it is.
   */
  get(key: string, count: () => Promise<number>, recountUpTo = -1): Promise<number> {
    const at = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.expiresAt > at && (entry.settled === undefined || entry.settled > recountUpTo)) return entry.value;
    if (this.ttlMs <= 0) return count();
    const value = count();
    this.put(key, value, at);
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    return value;
  }

  /** The kept count of `key` when one has been computed and is still fresh, without counting. */
  known(key: string): number | undefined {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > this.now() ? entry.settled : undefined;
  }

  /** A count known exactly by other means (a page that proves its total) replaces the kept one. */
  remember(key: string, total: number): void {
    if (this.ttlMs > 0) this.put(key, Promise.resolve(total), this.now(), total);
  }

  private put(key: string, value: Promise<number>, at: number, settled?: number): void {
    this.entries.delete(key);
    // Oldest first: a Map iterates in insertion order, and every put re-inserts its key.
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const entry: { value: Promise<number>; expiresAt: number; settled?: number } = { value, expiresAt: at + this.ttlMs, settled };
    this.entries.set(key, entry);
    value.then(
      (n) => (entry.settled = n),
      () => undefined,
    );
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
