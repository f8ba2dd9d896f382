import { Pauses } from './pauses';

describe('Pauses: the sleeps of a worker loop, cut short on wake', () => {
  const elapsed = async (work: Promise<void>) => {
    const started = Date.now();
    await work;
    return Date.now() - started;
  };

  it('sleeps its time when nothing wakes it', async () => {
    expect(await elapsed(new Pauses().pause(30))).toBeGreaterThanOrEqual(25);
  });

  it('ends every pause under way at once on wake, and a later pause sleeps again', async () => {
    const pauses = new Pauses();
    const first = elapsed(pauses.pause(10_000));
    const second = elapsed(pauses.pause(10_000));
    pauses.wake();
    expect(await first).toBeLessThan(1_000);
    expect(await second).toBeLessThan(1_000);
    expect(await elapsed(pauses.pause(30))).toBeGreaterThanOrEqual(25);
  });

  it('wakes nothing when no pause is under way', async () => {
    const pauses = new Pauses();
    pauses.wake();
    expect(await elapsed(pauses.pause(30))).toBeGreaterThanOrEqual(25);
  });
});
