import { realTimers } from './test-support/real-timers';
import { OutcomeFlusher } from './outcome-flusher';

/** A write that records each group and waits for the test to let it finish. */
function recordingWrite() {
  const groups: number[][] = [];
  const releases: Array<() => void> = [];
  const write = (group: readonly number[]) =>
    new Promise<number>((resolve) => {
      groups.push([...group]);
      releases.push(() => resolve(group.length));
    });
  return { groups, write, release: () => releases.shift()!() };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `work` under jest's fake timers, so the pauses between retried commits take no time. */
async function withFakeTimers<T>(work: () => Promise<T>): Promise<T> {
  jest.useFakeTimers();
  try {
    const done = work();
    done.catch(() => undefined);
    await jest.runAllTimersAsync();
    return await done;
  } finally {
    jest.useRealTimers();
  }
}

describe('OutcomeFlusher: group commit of send outcomes', () => {
  it('commits a lone outcome at once when no other message is in flight', async () => {
    const w = recordingWrite();
    const flusher = new OutcomeFlusher<number>(w.write, { size: 10, maxWaitMs: 60_000 }, realTimers);
    flusher.begin();
    const done = flusher.push(1);
    await tick();
    expect(w.groups).toEqual([[1]]);
    w.release();
    await done;
    expect(flusher.takeProcessed()).toBe(1);
    expect(flusher.takeProcessed()).toBe(0);
  });

  it('lets outcomes wait for company while other messages are in flight, up to the group size', async () => {
    const w = recordingWrite();
    const flusher = new OutcomeFlusher<number>(w.write, { size: 3, maxWaitMs: 60_000 }, realTimers);
    for (let i = 0; i < 5; i++) flusher.begin();
    const first = [flusher.push(1), flusher.push(2)];
    await tick();
    expect(w.groups).toEqual([]);
    first.push(flusher.push(3));
    await tick();
    expect(w.groups).toEqual([[1, 2, 3]]);
    w.release();
    await Promise.all(first);
  });

  it('commits what waits once the last message in flight ends, with or without an outcome', async () => {
    const w = recordingWrite();
    const flusher = new OutcomeFlusher<number>(w.write, { size: 10, maxWaitMs: 60_000 }, realTimers);
    flusher.begin();
    flusher.begin();
    const done = flusher.push(1);
    await tick();
    expect(w.groups).toEqual([]);
    flusher.abandon();
    await tick();
    expect(w.groups).toEqual([[1]]);
    w.release();
    await done;
  });

  it('waits at most maxWaitMs for company', async () => {
    const w = recordingWrite();
    jest.useFakeTimers();
    try {
      const flusher = new OutcomeFlusher<number>(w.write, { size: 10, maxWaitMs: 30 }, realTimers);
      flusher.begin();
      flusher.begin();
      const done = flusher.push(1);
      await jest.advanceTimersByTimeAsync(29);
      expect(w.groups).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      expect(w.groups).toEqual([[1]]);
      w.release();
      await done;
    } finally {
      jest.useRealTimers();
    }
  });

  it('runs one commit at a time: what arrives meanwhile forms the next group', async () => {
    const w = recordingWrite();
    const flusher = new OutcomeFlusher<number>(w.write, { size: 1, maxWaitMs: 60_000 }, realTimers);
    for (let i = 0; i < 4; i++) flusher.begin();
    const pushed = [flusher.push(1)];
    await tick();
    pushed.push(flusher.push(2), flusher.push(3), flusher.push(4));
    await tick();
    expect(w.groups).toEqual([[1]]);
    w.release();
    await tick();
    expect(w.groups).toEqual([[1], [2, 3, 4]]);
    w.release();
    await Promise.all(pushed);
    expect(flusher.takeProcessed()).toBe(4);
  });

  it('tries a failed commit again, and fails the group after the fifth attempt', async () => {
    let calls = 0;
    const flaky = new OutcomeFlusher<number>(
      async (group) => {
        if (++calls < 3) throw new Error('deadlock detected');
        return group.length;
      },
      { size: 1, maxWaitMs: 60_000 },
      realTimers,
    );
    flaky.begin();
    await withFakeTimers(() => flaky.push(1));
    expect(calls).toBe(3);

    let attempts = 0;
    const broken = new OutcomeFlusher<number>(
      async () => {
        attempts++;
        throw new Error('connection terminated');
      },
      { size: 1, maxWaitMs: 60_000 },
      realTimers,
    );
    broken.begin();
    await withFakeTimers(() => expect(broken.push(1)).rejects.toThrow('connection terminated'));
    expect(attempts).toBe(5);
  });

  it('keeps trying a commit for as long as it is told to (the database away), and commits it then', async () => {
    let away = true;
    let calls = 0;
    const flusher = new OutcomeFlusher<number>(
      async (group) => {
        if (++calls === 6) away = false;
        if (away) throw new Error('connect ECONNREFUSED');
        return group.length;
      },
      { size: 1, maxWaitMs: 60_000 },
      realTimers,
      () => away,
    );
    flusher.begin();
    await withFakeTimers(() => flusher.push(1));
    expect(calls).toBe(6);
    expect(flusher.takeProcessed()).toBe(1);
  });
});
