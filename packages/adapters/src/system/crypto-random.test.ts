import { CryptoRandom } from './crypto-random';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('CryptoRandom', () => {
  it('gives each caller the length it asked for, across the pool refilling', () => {
    const random = new CryptoRandom();
    const lengths = [1, 32, 4000, 200, 4096, 4097, 16, 1];
    expect(lengths.map((n) => random.bytes(n).length)).toEqual(lengths);
  });

  it('never hands out the same bytes twice', () => {
    const random = new CryptoRandom();
    // 2,000 draws of 32 bytes: five refills of the pool. Equal draws would mean reused bytes
    // (the odds of a true repeat are 2^-256 each).
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(hex(random.bytes(32)));
    expect(seen.size).toBe(2000);
  });

  it('draws bytes, not zeros, at every position of the pool', () => {
    const random = new CryptoRandom();
    // Single bytes across two pools: a pool handed out unfilled would be all zeros.
    const counts = new Map<number, number>();
    for (let i = 0; i < 8192; i++) {
      const [b] = random.bytes(1);
      counts.set(b!, (counts.get(b!) ?? 0) + 1);
    }
    // 8,192 uniform bytes: each value about 32 times; none near the whole draw.
    expect(counts.size).toBeGreaterThan(200);
    expect(Math.max(...counts.values())).toBeLessThan(100);
  });

  it('hands out copies: what one caller does to its bytes reaches no one else', () => {
    const random = new CryptoRandom();
    const first = random.bytes(16);
    first.fill(7);
    const second = random.bytes(16);
    expect(hex(second)).not.toBe(hex(first));
    expect(second.every((b) => b === 0)).toBe(false);
  });
});
