import { setTimeout as sleep } from 'node:timers/promises';
import { TurnBatches } from './turn-batches';

/** A statement under test's control: it answers when released, or at once when `instant`. */
interface Call {
  kind: 'single' | 'batch';
  items: string[];
  release(): void;
}

function harness(options: { instant?: boolean; failBatches?: boolean; stalledMs?: number } = {}) {
  const calls: Call[] = [];
  const call = <T>(kind: Call['kind'], items: string[], answer: () => T) =>
    new Promise<T>((resolve, reject) => {
      const release = () => {
        if (kind === 'batch' && options.failBatches) reject(new Error('batch failed'));
        else if (items.includes('bad')) reject(new Error('bad item'));
        else resolve(answer());
      };
      calls.push({ kind, items, release });
      if (options.instant) release();
    });
  const batches = new TurnBatches<string, string>(
    {
      key: (item) => (item.startsWith('same') ? 'same' : null),
      single: (item) => call('single', [item], () => `one:${item}`),
      batch: (items) => call('batch', [...items], () => items.map((item) => `many:${item}`)),
    },
    options.stalledMs ?? 10_000,
  );
  /** Lets setImmediate callbacks run. */
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { calls, batches, turn };
}

describe('TurnBatches', () => {
  it('sends a lone item at once, on its own', async () => {
    const { calls, batches } = harness({ instant: true });
    await expect(batches.submit('a')).resolves.toBe('one:a');
    expect(calls.map((c) => [c.kind, c.items])).toEqual([['single', ['a']]]);
  });

  it('sends the items of one turn as one batch, each with its own answer', async () => {
    const { calls, batches } = harness({ instant: true });
    const answers = await Promise.all(['a', 'b', 'c'].map((item) => batches.submit(item)));
    expect(answers).toEqual(['many:a', 'many:b', 'many:c']);
    expect(calls.map((c) => [c.kind, c.items])).toEqual([['batch', ['a', 'b', 'c']]]);
  });

  it('keeps one statement in flight: what arrives meanwhile goes together in the next, when it ends', async () => {
    const { calls, batches, turn } = harness();
    const first = batches.submit('a');
    await turn();
    const later = ['b', 'c', 'd'].map((item) => batches.submit(item));
    await turn();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([['a']]);
    calls[0]!.release();
    await expect(first).resolves.toBe('one:a');
    await turn();
    expect(calls.map((c) => c.items)).toEqual([['a'], ['b', 'c', 'd']]);
    calls[1]!.release();
    await expect(Promise.all(later)).resolves.toEqual(['many:b', 'many:c', 'many:d']);
  });

  it('starts the next statement beside one that has stalled, up to four in flight', async () => {
    const { calls, batches, turn } = harness({ stalledMs: 30 });
    const started = () => calls.map((c) => c.items);
    /** Waits (real time, loaded machines included) until the statements started are these. */
    const until = async (expected: string[][]) => {
      for (let waited = 0; waited < 5_000 && JSON.stringify(started()) !== JSON.stringify(expected); waited += 5) await sleep(5);
      expect(started()).toEqual(expected);
    };
    const submitted = [batches.submit('a')];
    await turn();
    submitted.push(batches.submit('b'));
    await turn();
    await turn();
    expect(started()).toEqual([['a']]);
    // Past 30 ms the first no longer holds the second back, and so on for each later one.
    await until([['a'], ['b']]);
    submitted.push(batches.submit('c'), batches.submit('d'), batches.submit('e'));
    await until([['a'], ['b'], ['c', 'd', 'e']]);
    submitted.push(batches.submit('f'));
    await until([['a'], ['b'], ['c', 'd', 'e'], ['f']]);
    // Four in flight: the fifth waits for one of them to end, stalled or not.
    submitted.push(batches.submit('g'));
    await sleep(100);
    expect(started()).toHaveLength(4);
    calls[0]!.release();
    await until([['a'], ['b'], ['c', 'd', 'e'], ['f'], ['g']]);
    for (const c of calls.slice(1)) c.release();
    await expect(Promise.all(submitted)).resolves.toEqual(['one:a', 'one:b', 'many:c', 'many:d', 'many:e', 'one:f', 'one:g']);
  });

  it('never puts two items of one key in a batch: the second waits for the next', async () => {
    const { calls, batches } = harness({ instant: true });
    const answers = await Promise.all(['same-1', 'x', 'same-2'].map((item) => batches.submit(item)));
    expect(answers).toEqual(['many:same-1', 'many:x', 'one:same-2']);
    expect(calls.map((c) => [c.kind, c.items])).toEqual([
      ['batch', ['same-1', 'x']],
      ['single', ['same-2']],
    ]);
  });

  it('retries a failed batch one item at a time, so each item gets its own answer or error', async () => {
    const { calls, batches } = harness({ instant: true, failBatches: true });
    const settled = await Promise.allSettled(['a', 'bad', 'c'].map((item) => batches.submit(item)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual(['one:a', 'bad item', 'one:c']);
    expect(calls.map((c) => c.kind)).toEqual(['batch', 'single', 'single', 'single']);
  });

  it('takes at most 100 items in a statement', async () => {
    const { calls, batches } = harness({ instant: true });
    const items = Array.from({ length: 250 }, (_, i) => `i${i}`);
    await Promise.all(items.map((item) => batches.submit(item)));
    expect(calls.map((c) => c.items.length)).toEqual([100, 100, 50]);
    expect(calls.flatMap((c) => c.items)).toEqual(items);
  });
});
