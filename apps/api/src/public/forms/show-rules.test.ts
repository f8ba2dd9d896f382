import { deviceAllows, frequencyAllows, scrolledPercent, type ShowMemory } from './show-rules';

const NOW = Date.UTC(2026, 11, 1, 12);
const HOUR = 3_600_000;
const fresh: ShowMemory = { lastShownAt: null, shownThisSession: false, submitted: false };

describe('frequencyAllows (docs/opt-in-forms.md, "Widgets and triggers")', () => {
  it.each([
    ['always', { lastShownAt: NOW - 1000, shownThisSession: true, submitted: false }, true],
    ['every_visit', { lastShownAt: NOW - 1000, shownThisSession: true, submitted: false }, true],
    ['once_per_session', fresh, true],
    ['once_per_session', { lastShownAt: NOW - 1000, shownThisSession: true, submitted: false }, false],
    ['once_per_session', { lastShownAt: NOW - 1000, shownThisSession: false, submitted: false }, true],
    ['once_per_day', { lastShownAt: NOW - 23 * HOUR, shownThisSession: false, submitted: false }, false],
    ['once_per_day', { lastShownAt: NOW - 24 * HOUR, shownThisSession: true, submitted: false }, true],
    ['once_per_week', { lastShownAt: NOW - 6 * 24 * HOUR, shownThisSession: false, submitted: false }, false],
    ['once_per_week', { lastShownAt: NOW - 7 * 24 * HOUR, shownThisSession: false, submitted: false }, true],
    ['once', fresh, true],
    ['once', { lastShownAt: NOW - 300 * 24 * HOUR, shownThisSession: false, submitted: false }, false],
    ['every_visit', { lastShownAt: null, shownThisSession: false, submitted: true }, false],
    ['always', { lastShownAt: null, shownThisSession: false, submitted: true }, true],
  ] as const)('%s with %o: %s', (frequency, memory, allowed) => {
    expect(frequencyAllows(frequency, memory, NOW)).toBe(allowed);
  });
});

describe('deviceAllows and scrolledPercent', () => {
  it('tells desktops, tablets and mobiles apart by viewport width', () => {
    const widths = [375, 767, 768, 1024, 1025, 1280];
    expect(widths.map((w) => deviceAllows(['desktop', 'tablet', 'mobile'], w))).toEqual([true, true, true, true, true, true]);
    expect(widths.map((w) => deviceAllows([], w))).toEqual([true, true, true, true, true, true]);
    expect(widths.map((w) => deviceAllows(['desktop'], w))).toEqual([false, false, false, false, true, true]);
    expect(widths.map((w) => deviceAllows(['tablet'], w))).toEqual([false, false, true, true, false, false]);
    expect(widths.map((w) => deviceAllows(['mobile'], w))).toEqual([true, true, false, false, false, false]);
  });

  it('measures the bottom of the viewport against the page', () => {
    expect(scrolledPercent(0, 800, 800)).toBe(100);
    expect(scrolledPercent(0, 500, 2000)).toBe(25);
    expect(scrolledPercent(1500, 500, 2000)).toBe(100);
  });
});
