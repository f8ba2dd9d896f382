/**
 * At most `perChannel` pieces of work of one channel at a time in this process; the others wait
 * their turn, in order, holding no database connection (docs/segments.md, "Bounds"). A waiter
 * whose signal aborts leaves the line.
 */
export class ChannelGate {
  private readonly running = new Map<number, number>();
  private readonly waiting = new Map<number, Array<() => void>>();

  constructor(private readonly perChannel: number) {}

  async run<T>(channelId: number, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    await this.enter(channelId, signal);
    try {
      return await work();
    } finally {
      this.leave(channelId);
    }
  }

  private enter(channelId: number, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const count = this.running.get(channelId) ?? 0;
    if (count < this.perChannel) {
      this.running.set(channelId, count + 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const line = this.waiting.get(channelId) ?? [];
      const turn = () => {
        signal?.removeEventListener('abort', leaveLine);
        resolve();
      };
      const leaveLine = () => {
        line.splice(line.indexOf(turn), 1);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', leaveLine, { once: true });
      line.push(turn);
      this.waiting.set(channelId, line);
    });
  }

  /** Hands the place to the next in line, or frees it. */
  private leave(channelId: number): void {
    const next = this.waiting.get(channelId)?.shift();
    if (next !== undefined) return next();
    if (this.waiting.get(channelId)?.length === 0) this.waiting.delete(channelId);
    const count = (this.running.get(channelId) ?? 1) - 1;
    if (count === 0) this.running.delete(channelId);
    else this.running.set(channelId, count);
  }
}
