import type { Page, SubscriberFilter } from '@mailcast/core';
import { totalFromPage } from '@mailcast/domain';
import type { Knex } from 'knex';
import { audienceChanges, CountCache, KeptResults, listCountKey, type ChangeCounter } from './count-cache';

/** LIKE treats % _ and \ specially; a fragment is matched literally. */
export const likeLiteral = (fragment: string) => fragment.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The domain a fragment names when it is `@` and the start of a domain (`@d1.test`, `@acme`):
 * every address has exactly one `@` (docs/subscribers.md), so such a fragment is in an address
 * exactly when the address's domain starts with what follows the `@`. Null for any other fragment.
 */
export function domainOfFragment(fragment: string): string | null {
  const lower = fragment.toLowerCase();
  return lower.length > 1 && lower.startsWith('@') && !lower.includes('@', 1) ? lower.slice(1) : null;
}

/** The address fragment as SQL: a domain's start on the domain index (docs/subscribers.md, "A domain"), else a trigram LIKE. */
function whereEmailContains(query: Knex.QueryBuilder, fragment: string): void {
  const domain = domainOfFragment(fragment);
  // The expression is the index's own (migration 20261204200000_subscriber_email_domain).
  if (domain !== null) query.whereRaw(`split_part(email, '@', 2) LIKE ?`, [`${likeLiteral(domain)}%`]);
  // Addresses are stored lower-cased, so a lower-cased LIKE is the case-insensitive match.
  else query.whereRaw(`email LIKE ?`, [`%${likeLiteral(fragment.toLowerCase())}%`]);
}

/**
 * Adds the spec's list filters as SQL, each one backed by an index: the trigram GIN index for
 * the address fragment (the domain btree for `@domain`), GIN (channel_id, tags) for tags,
 * jsonb_path_ops GIN for custom_data.
 * Nothing is filtered in JavaScript. Exported so the benchmark runs the very same SQL.
 */
export function applySubscriberFilter(query: Knex.QueryBuilder, channelId: number, filter: SubscriberFilter): Knex.QueryBuilder {
  query.where('channel_id', channelId);
  if (filter.isActive !== undefined) query.where('is_active', filter.isActive);
  if (filter.source !== undefined) query.where('source', filter.source);
  if (filter.emailContains !== undefined) whereEmailContains(query, filter.emailContains);
  if (filter.confirmationStatus === 'confirmed') query.whereNotNull('confirmed_at');
  if (filter.confirmationStatus === 'unconfirmed') query.whereNull('confirmed_at');
  if (filter.createdAfter !== undefined) query.where('created_at', '>=', filter.createdAfter);
  if (filter.createdBefore !== undefined) query.where('created_at', '<=', filter.createdBefore);
  if (filter.tags !== undefined && filter.tags.length > 0) query.whereRaw(`tags @> ?::text[]`, [filter.tags]);
  if (filter.customData !== undefined && Object.keys(filter.customData).length > 0) {
    query.whereRaw(`custom_data @> ?::jsonb`, [JSON.stringify(filter.customData)]);
  }
  return query;
}

/** The list's order: newest first, then the highest id. */
const ORDER = [
  { column: 'created_at', order: 'desc' as const },
  { column: 'id', order: 'desc' as const },
];

/** The page query of a broad filter: the order index read newest first until the page is full. */
export function subscriberPageQuery(db: Knex, channelId: number, filter: SubscriberFilter, page: Page) {
  return applySubscriberFilter(db('subscribers'), channelId, filter).select('*').orderBy(ORDER).limit(page.limit).offset(page.offset);
}

/** The count query of a broad filter, run only when the page does not prove the total. */
export function subscriberCountQuery(db: Knex, channelId: number, filter: SubscriberFilter) {
  return applySubscriberFilter(db('subscribers'), channelId, filter).count<{ count: number }[]>({ count: '*' });
}

/**
 * The ids a filter matches, in the list's order, at most `limit` of them. The matches are found
 * on their own indexes first (planned without an order, so a filter whose matches are spread
 * through the channel does not walk the order index), then sorted.
 */
export function subscriberMatchesQuery(db: Knex, channelId: number, filter: SubscriberFilter, limit: number) {
  const matches = applySubscriberFilter(db('subscribers'), channelId, filter).select('id', 'created_at').limit(limit);
  return db.from(matches.as('m')).select('id').orderBy(ORDER);
}

/**
 * The rows of one page of kept matches, read by primary key and checked against the filter again,
 * so a row that changed since the matches were found (docs/subscribers.md, "Kept matches") is left
 * out rather than shown.
 */
export function subscriberRowsQuery(db: Knex, channelId: number, filter: SubscriberFilter, ids: number[]) {
  const rows = db('subscribers').where('channel_id', channelId).whereRaw('id = ANY(?::bigint[])', [ids]).select('*');
  return applySubscriberFilter(db.withMaterialized('page', rows).from('page'), channelId, filter).select('*').orderBy(ORDER);
}

/** How long an exact list count, or a filter's matches, is kept (docs/subscribers.md, "List totals"). */
export const LIST_COUNT_TTL_MS = 30_000;
/** Up to which size a total, or a list of matches, is always found again. */
export const LIST_COUNT_ALWAYS_EXACT_UP_TO = 1000;
/** The most matches kept for one filter; a filter that matches more is listed from the order index. */
export const LIST_MATCHES_MAX = 100_000;
/** The most matches kept in all, across filters (8 bytes each). */
export const LIST_MATCHES_BUDGET = 1_000_000;
/** The most rows of pages kept in all, across filters and pages (about a kilobyte each). */
export const LIST_PAGE_ROWS_BUDGET = 10_000;

/** What a list is read with: its kept counts and kept matches, and how long a broad filter is known to be broad. */
export interface ListCaches {
  changes: ChangeCounter;
  counts: CountCache;
  matches: KeptResults<Float64Array | null>;
  pages: KeptResults<unknown[]>;
  /** Filters found to match more than can be kept: not searched again while this is fresh, whatever the counter. */
  broad: KeptResults<true>;
}

export function listCaches(changes: ChangeCounter, now: () => number = Date.now, matchesBudget = LIST_MATCHES_BUDGET): ListCaches {
  return {
    changes,
    counts: new CountCache(LIST_COUNT_TTL_MS, undefined, now),
    matches: new KeptResults<Float64Array | null>(
      LIST_COUNT_TTL_MS,
      matchesBudget,
      { size: (ids) => ids?.length ?? Infinity, weigh: (ids) => ids?.length ?? 1 },
      now,
    ),
    pages: new KeptResults<unknown[]>(LIST_COUNT_TTL_MS, LIST_PAGE_ROWS_BUDGET, { size: (rows) => rows.length, weigh: (rows) => rows.length }, now),
    broad: new KeptResults<true>(LIST_COUNT_TTL_MS, 1000, { size: () => 1, weigh: () => 1 }, now),
  };
}

/**
 * One page of a filtered list and its exact total (docs/subscribers.md, "List totals" and "Kept
 * matches"). A filter that matches at most LIST_MATCHES_MAX subscribers has its matching ids
 * found once and kept, under the audience's change counter: each page is then read by primary key
 * (and its rows kept under the same reading), and the total is the number kept. A broader filter
 * reads the order index until its page is full, and counts. Kept rows are shared between
 * requests: callers map them to new objects and never change them.
 */
export class SubscriberLists {
  constructor(
    private readonly db: Knex,
    private readonly caches: ListCaches = listCaches(audienceChanges(db)),
    private readonly maxMatches = LIST_MATCHES_MAX,
  ) {}

  async list<Row>(channelId: number, filter: SubscriberFilter, page: Page): Promise<{ rows: Row[]; total: number }> {
    const key = listCountKey(channelId, filter);
    const reading = await this.caches.changes();
    const broad = this.caches.broad.known(key) === true;
    const ids = broad ? null : await this.caches.matches.at(reading).get(key, () => this.findMatches(key, channelId, filter), LIST_COUNT_ALWAYS_EXACT_UP_TO);
    if (ids !== null) {
      const pageIds = Array.from(ids.subarray(page.offset, page.offset + page.limit));
      const read = async () => (pageIds.length === 0 ? [] : ((await subscriberRowsQuery(this.db, channelId, filter, pageIds)) as Row[]));
      // Kept matches are reused only above the always-found size; so are their pages' rows.
      const reused = ids.length > LIST_COUNT_ALWAYS_EXACT_UP_TO;
      const rows = reused ? ((await this.caches.pages.at(reading).get(`${key}|${page.offset}|${page.limit}`, read)) as Row[]) : await read();
      return { rows, total: ids.length };
    }
    const rows = (await subscriberPageQuery(this.db, channelId, filter, page)) as Row[];
    // A short page proves the total exactly; otherwise an exact count, kept per filter until the
    // subscribers change. A kept count is never less than the rows this (full) page shows to exist.
    const counts = this.caches.counts.at(reading);
    const proven = totalFromPage(page.offset, page.limit, rows.length);
    if (proven !== null) {
      counts.remember(key, proven);
      return { rows, total: proven };
    }
    const counted = await counts.get(
      key,
      async () => Number((await subscriberCountQuery(this.db, channelId, filter))[0]?.count ?? 0),
      LIST_COUNT_ALWAYS_EXACT_UP_TO,
    );
    return { rows, total: Math.max(rows.length > 0 ? page.offset + rows.length : 0, counted) };
  }

  private async findMatches(key: string, channelId: number, filter: SubscriberFilter): Promise<Float64Array | null> {
    const rows = (await subscriberMatchesQuery(this.db, channelId, filter, this.maxMatches + 1)) as Array<{ id: number | string }>;
    if (rows.length <= this.maxMatches) return Float64Array.from(rows, (r) => Number(r.id));
    this.caches.broad.remember(key, true);
    return null;
  }
}
