import { type LinkClickStats, parseLinkQuery, sortLinks, toLinkItem } from './links';
import { errorOf } from './test-support/catch-domain-error';

describe('parseLinkQuery', () => {
  test.each([
    [{}, { sort: 'total', order: 'desc', limit: 100 }],
    [{ sort: 'unique' }, { sort: 'unique', order: 'desc', limit: 100 }],
    [{ order: 'asc' }, { sort: 'total', order: 'asc', limit: 100 }],
    [
      { order: 'DESC', sort: 'Unique' },
      { sort: 'unique', order: 'desc', limit: 100 },
    ],
    [{ limit: '1' }, { sort: 'total', order: 'desc', limit: 1 }],
    [{ limit: '500' }, { sort: 'total', order: 'desc', limit: 500 }],
    [{ limit: '501' }, { sort: 'total', order: 'desc', limit: 500 }],
    [{ limit: '99999999999999999999' }, { sort: 'total', order: 'desc', limit: 500 }],
    [{ limit: ' 20 ' }, { sort: 'total', order: 'desc', limit: 20 }],
    [
      { sort: '', order: '', limit: '' },
      { sort: 'total', order: 'desc', limit: 100 },
    ],
  ])('%j → %j', (query, expected) => {
    expect(parseLinkQuery(query)).toEqual(expected);
  });

  test.each([
    [{ sort: 'clicks' }, 'invalid_sort', 'Invalid sort'],
    [{ order: 'up' }, 'invalid_order', 'Invalid order'],
    [{ limit: '0' }, 'invalid_limit', 'Invalid limit'],
    [{ limit: '-5' }, 'invalid_limit', 'Invalid limit'],
    [{ limit: '2.5' }, 'invalid_limit', 'Invalid limit'],
    [{ limit: 'ten' }, 'invalid_limit', 'Invalid limit'],
    [{ limit: '1e2' }, 'invalid_limit', 'Invalid limit'],
  ])('%j → %s', (query, code, message) => {
    expect(errorOf(() => parseLinkQuery(query))).toEqual({ name: 'DomainError', code, message });
  });
});

const link = (id: number, totalClicks: number, uniqueClicks: number): LinkClickStats => ({
  id,
  identifier: `l${id}`,
  url: `https://example.com/${id}`,
  totalClicks,
  uniqueClicks,
  humanClicks: 0,
  firstClickedAt: null,
  lastClickedAt: null,
});

describe('sortLinks', () => {
  const items = [link(3, 10, 2), link(1, 10, 5), link(2, 4, 5), link(4, 0, 0)];

  test.each([
    ['total', 'desc', [1, 3, 2, 4]],
    ['total', 'asc', [4, 2, 1, 3]],
    ['unique', 'desc', [1, 2, 3, 4]],
    ['unique', 'asc', [4, 3, 1, 2]],
  ] as const)('by %s %s → ids %j (ties by id ascending)', (sort, order, ids) => {
    expect(sortLinks(items, sort, order).map((l) => l.id)).toEqual(ids);
  });

  test('does not reorder its input', () => {
    sortLinks(items, 'total', 'asc');
    expect(items.map((l) => l.id)).toEqual([3, 1, 2, 4]);
  });
});

describe('toLinkItem', () => {
  test('spec item, click rate over sent', () => {
    expect(
      toLinkItem(
        {
          ...link(9, 12, 3),
          humanClicks: 2,
          firstClickedAt: new Date('2026-03-01T10:00:00Z'),
          lastClickedAt: new Date('2026-03-02T11:30:00Z'),
        },
        8,
      ),
    ).toEqual({
      id: 9,
      identifier: 'l9',
      url: 'https://example.com/9',
      clicks: 12,
      total_clicks: 12,
      unique_clicks: 3,
      human_clicks: 2,
      click_rate: 37.5,
      first_clicked_at: '2026-03-01T10:00:00.000Z',
      last_clicked_at: '2026-03-02T11:30:00.000Z',
    });
  });

  test('never clicked, nothing sent', () => {
    const item = toLinkItem(link(1, 0, 0), 0);
    expect(item.click_rate).toBe(0);
    expect(item.first_clicked_at).toBeNull();
    expect(item.last_clicked_at).toBeNull();
  });
});
