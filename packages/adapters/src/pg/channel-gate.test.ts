import { ChannelGate } from './channel-gate';

describe('ChannelGate', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('runs at most n of one channel at a time, in order, and other channels beside them', async () => {
    const gate = new ChannelGate(2);
    const started: string[] = [];
    const holds = [deferred(), deferred(), deferred()];
    const runs = holds.map((hold, i) => gate.run(1, undefined, async () => (started.push(`a${i}`), hold.promise)));
    const other = gate.run(2, undefined, async () => started.push('b'));
    await other;
    expect(started).toEqual(['a0', 'a1', 'b']);
    holds[1]!.resolve();
    await runs[1];
    await new Promise(setImmediate);
    expect(started).toEqual(['a0', 'a1', 'b', 'a2']);
    holds[0]!.resolve();
    holds[2]!.resolve();
    await Promise.all(runs);
  });

  it('lets a waiter whose signal aborts leave the line, and gives its place to the next', async () => {
    const gate = new ChannelGate(1);
    const hold = deferred();
    const first = gate.run(1, undefined, () => hold.promise);
    const leaving = new AbortController();
    const second = gate.run(1, leaving.signal, async () => 'second');
    const third = gate.run(1, undefined, async () => 'third');
    leaving.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    hold.resolve();
    await first;
    await expect(third).resolves.toBe('third');
    await expect(gate.run(1, leaving.signal, async () => 'late')).rejects.toThrow('gone');
  });
});
