import type { SubscriberFilter } from '@mailcast/core';

/**
 * Exact counts kept for a short time: subscriber-list totals (docs/subscribers.md, "List
 * totals") and segments' subscribers_count (docs/segments.md). A broad filter's count visits most
 * of its matching rows, which at a million subscribers is hundreds of milliseconds; counted once
 * per filter and time-to-live instead of once per request, a page of it costs only its page query. Callers that ask for a key whose
 * count is being computed share that one computation, so a burst of identical requests sends
 * one count, not one each. A failed count is not kept.
 */
export class CountCache {
  private readonly entries = new Map<string, { value: Promise<number>; expiresAt: number; settled?: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1000,
    private readonly now: () => number = Date.now,
  ) {}

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
