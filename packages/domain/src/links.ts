import { DomainError } from './errors';
import { percentage } from './statistics';

export type LinkSort = 'total' | 'unique';
export type SortOrder = 'desc' | 'asc';

export type LinkQuery = { sort: LinkSort; order: SortOrder; limit: number };

// Spec "Link statistics query parameters" and Limits: default 100, maximum 500.
export const DEFAULT_LINK_LIMIT = 100;
export const MAX_LINK_LIMIT = 500;

function given(v: string | undefined): v is string {
  return v !== undefined && v.trim() !== '';
}

/**
 * docs/statistics.md: unknown sort or order, or a limit below 1, is refused; a limit above
 * 500 is clamped. Absent or blank values take the spec's defaults; sort and order are matched
 * case-insensitively (`DESC` is what SQL-minded clients send).
 */
export function parseLinkQuery(q: { sort?: string; order?: string; limit?: string }): LinkQuery {
  let sort: LinkSort = 'total';
  if (given(q.sort)) {
    const v = q.sort.trim().toLowerCase();
    if (v !== 'total' && v !== 'unique') throw new DomainError('invalid_sort', 'Invalid sort');
    sort = v;
  }
  let order: SortOrder = 'desc';
  if (given(q.order)) {
    const v = q.order.trim().toLowerCase();
    if (v !== 'desc' && v !== 'asc') throw new DomainError('invalid_order', 'Invalid order');
    order = v;
  }
  let limit = DEFAULT_LINK_LIMIT;
  if (given(q.limit)) {
    const v = q.limit.trim();
    if (!/^-?\d+$/.test(v) || Number(v) < 1) throw new DomainError('invalid_limit', 'Invalid limit');
    limit = Math.min(Number(v), MAX_LINK_LIMIT);
  }
  return { sort, order, limit };
}

export type LinkClickStats = {
  id: number;
  identifier: string;
  url: string;
  totalClicks: number;
  uniqueClicks: number;
  /** Distinct recipients with a click of this link classified as a person's (docs/engagement.md). */
  humanClicks: number;
  firstClickedAt: Date | null;
  lastClickedAt: Date | null;
};

/**
 * Sorted copy by total or unique clicks. Ties always go by id ascending, whichever the order,
 * so pages cut with `limit` are deterministic.
 */
export function sortLinks<T extends LinkClickStats>(items: readonly T[], sort: LinkSort, order: SortOrder): T[] {
  const key = (l: LinkClickStats): number => (sort === 'total' ? l.totalClicks : l.uniqueClicks);
  const direction = order === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => (key(a) - key(b)) * direction || a.id - b.id);
}

/** The spec's "Broadcast link statistics item". */
export type LinkItem = {
  id: number;
  identifier: string;
  url: string;
  clicks: number;
  total_clicks: number;
  unique_clicks: number;
  human_clicks: number;
  click_rate: number;
  first_clicked_at: string | null;
  last_clicked_at: string | null;
};

/** docs/statistics.md: clicks = total_clicks; click_rate = unique_clicks / sent; human_clicks per docs/engagement.md. */
export function toLinkItem(item: LinkClickStats, sent: number): LinkItem {
  return {
    id: item.id,
    identifier: item.identifier,
    url: item.url,
    clicks: item.totalClicks,
    total_clicks: item.totalClicks,
    unique_clicks: item.uniqueClicks,
    human_clicks: item.humanClicks,
    click_rate: percentage(item.uniqueClicks, sent),
    first_clicked_at: item.firstClickedAt?.toISOString() ?? null,
    last_clicked_at: item.lastClickedAt?.toISOString() ?? null,
  };
}
