import { CountCache, KeptResults, listCountKey } from './count-cache';

describe('CountCache', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('counts once per key and time-to-live, then counts again', async () => {
    const cache = new CountCache(30_000, 10, clock);
    const count = jest.fn().mockResolvedValueOnce(7).mockResolvedValueOnce(9);
    expect(await cache.get('k', count)).toBe(7);
    now += 29_999;
    expect(await cache.get('k', count)).toBe(7);
    expect(count).toHaveBeenCalledTimes(1);
    now += 1;
    expect(await cache.get('k', count)).toBe(9);
    expect(count).toHaveBeenCalledTimes(2);
  });

  it('shares one count among callers that arrive while it runs', async () => {
    const cache = new CountCache(30_000, 10, clock);
    let release!: (n: number) => void;
    const count = jest.fn(() => new Promise<number>((resolve) => (release = resolve)));
    const both = Promise.all([cache.get('k', count), cache.get('k', count)]);
    release(42);
    expect(await both).toEqual([42, 42]);
    expect(count).toHaveBeenCalledTimes(1);
  });

  it('keeps no failed count', async () => {
    const cache = new CountCache(30_000, 10, clock);
    await expect(cache.get('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('k', () => Promise.resolve(3))).toBe(3);
  });

  it('with a time-to-live of 0 always counts', async () => {
    const cache = new CountCache(0, 10, clock);
    const count = jest.fn().mockResolvedValue(1);
    await cache.get('k', count);
    await cache.get('k', count);
    cache.remember('k', 5);
    expect(await cache.get('k', count)).toBe(1);
    expect(count).toHaveBeenCalledTimes(3);
  });

  it('a proven total replaces the kept count and is reported as known', async () => {
    const cache = new CountCache(30_000, 10, clock);
    await cache.get('k', () => Promise.resolve(500));
    expect(cache.known('k')).toBe(500);
    cache.remember('k', 501);
    expect(cache.known('k')).toBe(501);
    expect(await cache.get('k', () => Promise.resolve(0))).toBe(501);
    now += 30_000;
    expect(cache.known('k')).toBeUndefined();
  });

  it('holds at most maxEntries keys, dropping the oldest', async () => {
    const cache = new CountCache(30_000, 2, clock);
    cache.remember('a', 1);
    cache.remember('b', 2);
    cache.remember('c', 3);
    expect(cache.known('a')).toBeUndefined();
    expect([cache.known('b'), cache.known('c')]).toEqual([2, 3]);
  });
});

describe('listCountKey', () => {
  it('is the same for the same meaning and differs by channel and filter', () => {
    const day = new Date('2026-01-01T00:00:00Z');
    const a = listCountKey(1, { tags: ['b', 'a'], emailContains: 'ACME', customData: { y: 1, x: 'z' }, createdAfter: day });
    const b = listCountKey(1, { customData: { x: 'z', y: 1 }, createdAfter: new Date(day), emailContains: 'acme', tags: ['a', 'b', 'a'] });
    expect(a).toBe(b);
    expect(listCountKey(2, { tags: ['a', 'b'] })).not.toBe(listCountKey(1, { tags: ['a', 'b'] }));
    expect(listCountKey(1, { isActive: true })).not.toBe(listCountKey(1, { isActive: false }));
    expect(listCountKey(1, { customData: { x: 1 } })).not.toBe(listCountKey(1, { customData: { x: '1' } }));
  });
});

describe('CountCache recountUpTo', () => {
  it('counts a small kept total again and reuses a large one', async () => {
    const cache = new CountCache(30_000, 10, () => 0);
    cache.remember('small', 1000);
    cache.remember('large', 1001);
    expect(await cache.get('small', () => Promise.resolve(1200), 1000)).toBe(1200);
    expect(await cache.get('small', () => Promise.resolve(5), 1000)).toBe(1200);
    expect(await cache.get('large', () => Promise.resolve(7), 1000)).toBe(1001);
  });
});

describe('KeptResults weighed', () => {
  const lists = (maxWeight: number) => new KeptResults<number[]>(30_000, maxWeight, { size: (ids) => ids.length, weigh: (ids) => ids.length }, () => 0);

  it('keeps values up to the budget by their weight, dropping the oldest', async () => {
    const kept = lists(10);
    await kept.get('a', async () => [1, 2, 3, 4]);
    await kept.get('b', async () => [5, 6, 7, 8]);
    expect([kept.known('a'), kept.known('b')]).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    await kept.get('c', async () => [9, 10, 11]);
    expect(kept.known('a')).toBeUndefined();
    expect([kept.known('b'), kept.known('c')]).toEqual([
      [5, 6, 7, 8],
      [9, 10, 11],
    ]);
  });

  it('a reading of the change counter keeps its own values', async () => {
    const kept = lists(10);
    await kept.at('1').get('k', async () => [1]);
    expect(kept.at('1').known('k')).toEqual([1]);
    expect(kept.at('2').known('k')).toBeUndefined();
  });
});
