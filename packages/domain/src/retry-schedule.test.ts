import {
  DEFAULT_RETRIES_TO_ATTEMPT,
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRIES_TO_ATTEMPT,
  nextAttempt,
  parseDuration,
  parseRetrySchedule,
  retryDelayMs,
} from './retry-schedule';
import { errorOf } from './test-support/catch-domain-error';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

test('defaults of the spec and the contract', () => {
  expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H]);
  expect(DEFAULT_RETRIES_TO_ATTEMPT).toBe(6);
  expect(MAX_RETRIES_TO_ATTEMPT).toBe(20);
});

describe('parseDuration', () => {
  test.each([
    ['250ms', 250],
    ['0ms', 0],
    ['5s', 5000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    [' 10h ', 36_000_000],
    ['1 s', 1000],
    ['3S', 3000],
  ])('%j → %i ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  test.each(['', '5', '5d', '1.5s', '-1s', 's', '5 minutes', '99999999999999999h'])('%j is invalid', (input) => {
    const e = errorOf(() => parseDuration(input));
    expect(e.code).toBe('invalid_duration');
    expect(e.message).toBe(`Invalid duration: ${JSON.stringify(input)}`);
  });
});

describe('parseRetrySchedule', () => {
  test.each([
    ['1s,2s,3s', [1000, 2000, 3000]],
    [' 1s , 2s,3s ', [1000, 2000, 3000]],
    ['5s,5m,30m,2h,5h,10h', [...DEFAULT_RETRY_SCHEDULE_MS]],
    ['100ms', [100]],
  ])('%j → %j', (input, expected) => {
    expect(parseRetrySchedule(input)).toEqual(expected);
  });

  test.each(['', ' ', '1s,,2s', '1s,2s,', '1s;2s'])('%j is invalid', (input) => {
    expect(errorOf(() => parseRetrySchedule(input)).code).toBe('invalid_duration');
  });
});

describe('retryDelayMs', () => {
  test.each([
    [1, 5 * S],
    [2, 5 * M],
    [3, 30 * M],
    [4, 2 * H],
    [5, 5 * H],
    [6, 10 * H],
    [7, 10 * H],
    [20, 10 * H],
  ])('default schedule, retry %i waits %i ms', (n, ms) => {
    expect(retryDelayMs(n)).toBe(ms);
  });

  test.each([
    [1, 1000],
    [3, 3000],
    [4, 3000],
    [20, 3000],
  ])('custom 1s,2s,3s: retry %i waits %i ms (last delay repeats)', (n, ms) => {
    expect(retryDelayMs(n, [1000, 2000, 3000])).toBe(ms);
  });

  test.each([0, -1, 1.5])('retry number %d is a programming error', (n) => {
    expect(() => retryDelayMs(n)).toThrow(RangeError);
  });

  test('an empty schedule is a programming error', () => {
    expect(() => retryDelayMs(1, [])).toThrow(RangeError);
  });
});

describe('nextAttempt', () => {
  const failedAt = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number): Date => new Date(failedAt.getTime() + ms);

  test.each([
    // [attempts made, retries_to_attempt, expected]
    [1, 0, { kind: 'exhausted' }],
    [1, 6, { kind: 'retry', retryNumber: 1, at: at(5 * S) }],
    [2, 6, { kind: 'retry', retryNumber: 2, at: at(5 * M) }],
    [6, 6, { kind: 'retry', retryNumber: 6, at: at(10 * H) }],
    [7, 6, { kind: 'exhausted' }],
    [1, 1, { kind: 'retry', retryNumber: 1, at: at(5 * S) }],
    [2, 1, { kind: 'exhausted' }],
    [15, 20, { kind: 'retry', retryNumber: 15, at: at(10 * H) }],
    [21, 20, { kind: 'exhausted' }],
  ] as const)('after attempt %i with retries_to_attempt %i', (attemptNumber, retriesToAttempt, expected) => {
    expect(nextAttempt({ attemptNumber, retriesToAttempt, failedAt, schedule: DEFAULT_RETRY_SCHEDULE_MS })).toEqual(expected);
  });

  test('uses a custom schedule, default when omitted', () => {
    expect(nextAttempt({ attemptNumber: 5, retriesToAttempt: 6, failedAt, schedule: [1000, 2000] })).toEqual({
      kind: 'retry',
      retryNumber: 5,
      at: at(2000),
    });
    expect(nextAttempt({ attemptNumber: 3, retriesToAttempt: 6, failedAt })).toEqual({
      kind: 'retry',
      retryNumber: 3,
      at: at(30 * M),
    });
  });

  test('retries_to_attempt 6 gives 7 attempts in all', () => {
    let attempts = 1;
    while (nextAttempt({ attemptNumber: attempts, retriesToAttempt: 6, failedAt }).kind === 'retry') attempts += 1;
    expect(attempts).toBe(7);
  });
});
