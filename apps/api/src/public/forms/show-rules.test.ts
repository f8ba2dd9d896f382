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
  it('tells desktops from mobiles by viewport width', () => {
    expect([deviceAllows('all', 375), deviceAllows('all', 1280)]).toEqual([true, true]);
    expect([deviceAllows('desktop', 375), deviceAllows('desktop', 1280)]).toEqual([false, true]);
    expect([deviceAllows('mobile', 375), deviceAllows('mobile', 1280)]).toEqual([true, false]);
  });

  it('measures the bottom of the viewport against the page', () => {
    expect(scrolledPercent(0, 800, 800)).toBe(100);
    expect(scrolledPercent(0, 500, 2000)).toBe(25);
    expect(scrolledPercent(1500, 500, 2000)).toBe(100);
  });
});
