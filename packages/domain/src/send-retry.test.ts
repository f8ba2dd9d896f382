import { DEFAULT_SEND_RETRY_SCHEDULE_MS, sendRetryDelayMs } from './send-retry';

describe('sendRetryDelayMs', () => {
  test.each([
    [1, 60_000],
    [2, 300_000],
    [3, 900_000],
    [4, 1_800_000],
    [5, 3_600_000],
    [6, null],
  ])('after %i attempt(s) waits %p', (attempts, expected) => {
    expect(sendRetryDelayMs(attempts)).toBe(expected);
  });

  it('follows a given schedule and gives up after it', () => {
    expect(sendRetryDelayMs(1, [10, 20])).toBe(10);
    expect(sendRetryDelayMs(2, [10, 20])).toBe(20);
    expect(sendRetryDelayMs(3, [10, 20])).toBeNull();
    expect(DEFAULT_SEND_RETRY_SCHEDULE_MS).toHaveLength(5);
  });
});
