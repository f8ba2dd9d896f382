import fc from 'fast-check';
import { isoInstant } from './iso-instant';

describe('isoInstant', () => {
  it('is toISOString for every instant, inside its fast range and out of it', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 253_402_300_799_999 }), fc.integer({ min: -8.64e15, max: 8.64e15 })), (ms) => {
        const date = new Date(ms);
        expect(isoInstant(date)).toBe(date.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['the epoch', 0],
    ['a leap day', Date.UTC(2024, 1, 29, 23, 59, 59, 999)],
    ['the day after a leap day', Date.UTC(2024, 2, 1)],
    ['2000-02-29 (a leap century)', Date.UTC(2000, 1, 29, 12)],
    ['2100-03-01 (after a century that is not leap)', Date.UTC(2100, 2, 1)],
    ['the last millisecond of 9999', Date.UTC(9999, 11, 31, 23, 59, 59, 999)],
    ['10000-01-01', Date.UTC(10000, 0, 1)],
    ['just before the epoch', -1],
  ])('is toISOString at %s', (_case, ms) => {
    expect(isoInstant(new Date(ms))).toBe(new Date(ms).toISOString());
  });

  it('throws the builtin RangeError for an invalid date', () => {
    expect(() => isoInstant(new Date(Number.NaN))).toThrow(RangeError);
  });
});
