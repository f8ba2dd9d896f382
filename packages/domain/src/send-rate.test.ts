import fc from 'fast-check';
import {
  FRESH_SEND_RATE_STATE,
  adaptiveRate,
  hasSendLimits,
  isThrottlingReply,
  longLane,
  pickServer,
  recordThrottle,
  reserveSlots,
  shortLaneRate,
  type SendLimits,
  type SendRateState,
} from './send-rate';
import { busiestWindow } from '@mailcast/testkit/timing';

const NONE: SendLimits = { perSecond: null, perMinute: null, perHour: null, perDay: null };
const limits = (l: Partial<SendLimits>): SendLimits => ({ ...NONE, ...l });

/** Takes slots in rounds of `batch` as a dispatcher would, each round at the first slot's time. */
function drain(l: SendLimits, count: number, batch: number, horizonMs: number, start = 0): number[] {
  let state: SendRateState = FRESH_SEND_RATE_STATE;
  let now = start;
  const taken: number[] = [];
  while (taken.length < count) {
    const r = reserveSlots(l, state, now, Math.min(batch, count - taken.length), horizonMs);
    state = r.state;
    taken.push(...r.slots);
    now = r.nextAt !== null ? r.nextAt - horizonMs : (r.slots.at(-1) ?? now);
  }
  return taken;
}

describe('sending limits (GCRA lanes)', () => {
  it.each([
    [NONE, false],
    [limits({ perSecond: 0 }), false],
    [limits({ perSecond: 14 }), true],
    [limits({ perDay: 50_000 }), true],
  ])('limits %j bind: %s', (l, bound) => expect(hasSendLimits(l)).toBe(bound));

  it('grants everything at once without limits', () => {
    const r = reserveSlots(NONE, FRESH_SEND_RATE_STATE, 1_000, 5, 100);
    expect(r.slots).toEqual([1_000, 1_000, 1_000, 1_000, 1_000]);
    expect(r.nextAt).toBeNull();
  });

  it.each([
    // limit, slots wanted, horizon, slots granted, spacing
    [50, 3, 1_000, 3, 1000 / 49.75],
    [500, 64, 250, 64, 1000 / 497.5],
    [10, 10, 250, 3, 1000 / 9.95],
  ])('spaces a per-second limit of %i evenly (%i wanted within %i ms)', (perSecond, wanted, horizon, granted, spacing) => {
    const r = reserveSlots(limits({ perSecond }), FRESH_SEND_RATE_STATE, 0, wanted, horizon);
    expect(r.slots).toHaveLength(granted);
    r.slots.forEach((at, i) => expect(at).toBeCloseTo(i * spacing, 6));
    expect(r.nextAt === null).toBe(granted === wanted);
  });

  it('continues from where the last reservation ended, even one by another dispatcher', () => {
    const first = reserveSlots(limits({ perSecond: 100 }), FRESH_SEND_RATE_STATE, 0, 5, 1_000);
    const second = reserveSlots(limits({ perSecond: 100 }), first.state, 1, 5, 1_000);
    expect(second.slots[0]).toBeCloseTo(5 * (1000 / 99.5), 6);
  });

  it.each([
    [50, 49.75],
    [100, 99.5],
    [500, 497.5],
    [2, 1.99],
  ])('a per-second limit of %i schedules %d per second', (perSecond, rate) => {
    expect(shortLaneRate(limits({ perSecond }), FRESH_SEND_RATE_STATE, 0)).toBeCloseTo(rate, 6);
  });

  it('starts from now after an idle spell (no saved-up burst)', () => {
    const first = reserveSlots(limits({ perSecond: 100 }), FRESH_SEND_RATE_STATE, 0, 5, 1_000);
    const later = reserveSlots(limits({ perSecond: 100 }), first.state, 60_000, 2, 1_000);
    expect(later.slots[0]).toBe(60_000);
    expect(later.slots[1]! - later.slots[0]!).toBeCloseTo(1000 / 99.5, 6);
  });

  it.each([
    // limits, window, limit, messages at the first instant (a third of the limit, less a second for late slots, as a burst)
    [limits({ perMinute: 600 }), 60_000, 600, 194],
    [limits({ perHour: 3_600 }), 3_600_000, 3_600, 1_200],
    [limits({ perDay: 1_000 }), 86_400_000, 1_000, 334],
    [limits({ perSecond: 20, perMinute: 300 }), 60_000, 300, 1],
  ])('keeps every sliding window of %j within its limit', (l, window, limit, burst) => {
    const times = drain(l, limit * 3, 16, 5_000);
    expect(busiestWindow(times, window)).toBeLessThanOrEqual(limit);
    expect(times.filter((t) => t === times[0]).length).toBe(burst);
    if (l.perSecond !== null) expect(busiestWindow(times, 1_000)).toBeLessThanOrEqual(l.perSecond);
  });

  it('never lets any one-second window exceed the per-second limit (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 0, max: 2_000 }), (perSecond, batch, horizon) => {
        const times = drain(limits({ perSecond }), perSecond * 3, batch, horizon);
        return busiestWindow(times, 1_000) <= perSecond;
      }),
      { numRuns: 200 },
    );
  });

  it('long-lane interval and tolerance per limit', () => {
    expect(longLane(NONE)).toBeNull();
    const lane = longLane(limits({ perMinute: 600 }))!;
    expect(lane.interval).toBeCloseTo(150, 6);
    expect(lane.tolerance).toBeCloseTo(30_000, 6);
  });

  it('halves the rate on a throttling answer and climbs back linearly', () => {
    const l = limits({ perSecond: 100 });
    const throttled = recordThrottle(l, FRESH_SEND_RATE_STATE, 10_000, 0);
    expect(shortLaneRate(l, throttled, 10_000)).toBeCloseTo(49.75, 6);
    expect(throttled.tat).toBeCloseTo(10_000 + 1000 / 49.75, 6);
    // 5% of the ceiling (99.5/s) per second.
    expect(shortLaneRate(l, throttled, 12_000)).toBeCloseTo(49.75 + 2 * 4.975, 6);
    expect(adaptiveRate(throttled, 20_000)).toBeNull();
    expect(shortLaneRate(l, throttled, 20_000)).toBeCloseTo(99.5, 6);
  });

  it('counts answers of one episode once, and a later episode again', () => {
    const l = limits({ perSecond: 100 });
    const once = recordThrottle(l, FRESH_SEND_RATE_STATE, 10_000, 0);
    expect(recordThrottle(l, once, 10_500, 0)).toBe(once);
    const twice = recordThrottle(l, once, 11_000, 0);
    expect(shortLaneRate(l, twice, 11_000)).toBeCloseTo((49.75 + 4.975) / 2, 6);
  });

  it('caps a server without limits at half the rate it was throttled at', () => {
    const throttled = recordThrottle(NONE, FRESH_SEND_RATE_STATE, 0, 400);
    expect(shortLaneRate(NONE, throttled, 0)).toBe(200);
    expect(throttled.throttleCeiling).toBe(400);
    expect(shortLaneRate(NONE, throttled, 10_000)).toBeNull();
  });

  it('never goes below the minimum rate', () => {
    let state = FRESH_SEND_RATE_STATE;
    for (let i = 0; i < 20; i++) state = recordThrottle(limits({ perSecond: 2 }), state, i * 1_000, 0);
    expect(shortLaneRate(limits({ perSecond: 2 }), state, 19_000)).toBe(0.5);
  });

  it.each([
    [454, 'Throttling failure: Maximum sending rate exceeded.', true],
    [421, '4.7.0 Too many connections, slow down', true],
    [451, '4.7.1 Rate limit exceeded', true],
    [454, '4.7.0 TLS not available due to local problem', false],
    [450, 'Throttling failure', false],
    [554, 'Throttling failure', false],
    [null, 'Throttling failure', false],
    [421, 'Service not available, closing transmission channel', false],
  ])('%s %s is throttling: %s', (code, text, yes) => expect(isThrottlingReply(code, text)).toBe(yes));

  it.each([
    [[], 0, -1],
    [[0, 0, 0], 4, 1],
    [[30, 0, 10], 0, 1],
    [[5, 5, 9], 1, 1],
  ])('picks among waits %j at turn %i: %i', (waits, turn, index) => expect(pickServer(waits, turn)).toBe(index));
});
