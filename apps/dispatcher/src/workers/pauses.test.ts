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

  /** The pause is still under way one millisecond before `ms`, and over at `ms`. */
  const expectToSleep = async (pause: Promise<void>, ms: number) => {
    await jest.advanceTimersByTimeAsync(ms - 1);
    expect(await settled(pause)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(pause)).toBe(true);
  };

  it('sleeps its time when nothing wakes it', async () => {
    await expectToSleep(new Pauses().pause(30), 30);
  });

  it('ends every pause under way at once on wake, and a later pause sleeps again', async () => {
    const pauses = new Pauses();
    const first = pauses.pause(10_000);
    const second = pauses.pause(10_000);
    pauses.wake();
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(true);
    await expectToSleep(pauses.pause(30), 30);
  });

  it('wakes nothing when no pause is under way', async () => {
    const pauses = new Pauses();
    pauses.wake();
    await expectToSleep(pauses.pause(30), 30);
  });
});
