import type { BroadcastStatus } from '@mailcast/domain';
import { watchStatus } from './status-watch';
import { realTimers } from './test-support/real-timers';

describe('watchStatus: a sending job learns of a pause or an abort within one poll', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const watching = (answers: Array<BroadcastStatus | null | Error>) => {
    const seen: string[] = [];
    const read = jest.fn(async () => {
      const next = answers.length > 0 ? answers.shift()! : 'sending';
      if (next instanceof Error) throw next;
      return next;
    });
    const watch = watchStatus(
      async () => (await read()) === 'sending',
      100,
      () => seen.push('stopped'),
      realTimers,
    );
    return { seen, read, watch };
  };

  it('calls back once, at the first look that finds the broadcast no longer sending', async () => {
    const { seen, read } = watching(['sending', 'sending', 'paused', 'paused']);
    await jest.advanceTimersByTimeAsync(299);
    expect(seen).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(seen).toEqual(['stopped']);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual(['stopped']);
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('skips a look that fails (the database away) and sees the abort at the next', async () => {
    const { seen } = watching([new Error('ECONNREFUSED'), 'aborted']);
    await jest.advanceTimersByTimeAsync(100);
    expect(seen).toEqual([]);
    await jest.advanceTimersByTimeAsync(100);
    expect(seen).toEqual(['stopped']);
  });

  it('treats a deleted broadcast as stopped, and looks no more once stopped', async () => {
    const deleted = watching([null]);
    await jest.advanceTimersByTimeAsync(100);
    expect(deleted.seen).toEqual(['stopped']);

    const ended = watching(['paused']);
    ended.watch.stop();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(ended.read).not.toHaveBeenCalled();
    expect(ended.seen).toEqual([]);
  });
});
