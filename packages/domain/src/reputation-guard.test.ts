import { checkReputationGuard, DEFAULT_REPUTATION_GUARD, reputationVerdict, resolveReputationGuard } from './reputation-guard';

const on = DEFAULT_REPUTATION_GUARD;

describe('reputationVerdict', () => {
  test.each([
    ['below min_sent nothing is judged', on, { sent: 499, hard_bounces: 499, complaints: 0 }, null],
    ['at the hard bounce limit exactly: not crossed', on, { sent: 1000, hard_bounces: 50, complaints: 0 }, null],
    ['past the hard bounce limit', on, { sent: 1000, hard_bounces: 51, complaints: 0 }, 'hard_bounce_rate'],
    ['at the complaint limit exactly: not crossed', on, { sent: 1000, hard_bounces: 0, complaints: 1 }, null],
    ['past the complaint limit', on, { sent: 1000, hard_bounces: 0, complaints: 2 }, 'complaint_rate'],
    ['both crossed: hard bounces first', on, { sent: 1000, hard_bounces: 60, complaints: 5 }, 'hard_bounce_rate'],
    ['disabled: never', { ...on, enabled: false }, { sent: 1000, hard_bounces: 1000, complaints: 1000 }, null],
    ['min_sent 1 with one bounce of one', { ...on, min_sent: 1 }, { sent: 1, hard_bounces: 1, complaints: 0 }, 'hard_bounce_rate'],
  ] as const)('%s', (_name, settings, counts, reason) => {
    expect(reputationVerdict(settings, counts)?.reason ?? null).toBe(reason);
  });

  it('answers the figures, rates in percent with two decimals, and the limit crossed', () => {
    expect(reputationVerdict(on, { sent: 600, hard_bounces: 31, complaints: 1 })).toEqual({
      reason: 'hard_bounce_rate',
      sent: 600,
      hard_bounces: 31,
      complaints: 1,
      hard_bounce_rate: 5.17,
      complaint_rate: 0.17,
      limit: 5,
    });
  });
});

describe('checkReputationGuard', () => {
  it('takes any subset of the keys and names unknown ones', () => {
    expect(checkReputationGuard({ min_sent: 10, max_complaint_rate: 0.5, extra: 1 })).toEqual({
      patch: { min_sent: 10, max_complaint_rate: 0.5 },
      errors: {},
      unknown: ['extra'],
    });
  });

  it('refuses wrong types and out-of-range values, every one at once', () => {
    const { errors, patch } = checkReputationGuard({ enabled: 'yes', min_sent: 0, max_hard_bounce_rate: 101, max_complaint_rate: '0.1' });
    expect(patch).toEqual({});
    expect(Object.keys(errors).sort()).toEqual([
      'reputation_guard.enabled',
      'reputation_guard.max_complaint_rate',
      'reputation_guard.max_hard_bounce_rate',
      'reputation_guard.min_sent',
    ]);
    expect(checkReputationGuard({ min_sent: 1.5 }).errors).toEqual({ 'reputation_guard.min_sent': ['must be an integer of at least 1'] });
    expect(checkReputationGuard([]).errors).toEqual({ reputation_guard: ['must be an object'] });
  });

  it('accepts the bounds 0 and 100', () => {
    expect(checkReputationGuard({ max_hard_bounce_rate: 0, max_complaint_rate: 100 }).errors).toEqual({});
  });
});

describe('resolveReputationGuard', () => {
  it('fills every key the channel did not set with the default', () => {
    expect(resolveReputationGuard({})).toEqual({ enabled: true, min_sent: 500, max_hard_bounce_rate: 5, max_complaint_rate: 0.1 });
    expect(resolveReputationGuard({ min_sent: 20 })).toEqual({ ...on, min_sent: 20 });
  });
});
