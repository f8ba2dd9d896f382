import { Pauses } from './pauses';

describe('Pauses: the sleeps of a worker loop, cut short on wake', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Whether the promise has settled, after letting pending callbacks run. */
  const settled = async (work: Promise<void>) => {
    let done = false;
    void work.then(() => (done = true));
    await Promise.resolve();
    await Promise.resolve();
    return done;
  };

  it('sleeps its time when nothing wakes it', async () => {
    const pause = new Pauses().pause(30);
    await jest.advanceTimersByTimeAsync(29);
    expect(await settled(pause)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(pause)).toBe(true);
  });

  it('ends every pause under way at once on wake, and a later pause sleeps again', async () => {
    const pauses = new Pauses();
    const first = pauses.pause(10_000);
    const second = pauses.pause(10_000);
    pauses.wake();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    const later = pauses.pause(30);
    await jest.advanceTimersByTimeAsync(29);
    expect(await settled(later)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(later)).toBe(true);
  });

  it('wakes nothing when no pause is under way', async () => {
    const pauses = new Pauses();
    pauses.wake();
    const pause = pauses.pause(30);
    await jest.advanceTimersByTimeAsync(29);
    expect(await settled(pause)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(pause)).toBe(true);
  });
});
