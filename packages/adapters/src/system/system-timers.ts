import type { Timers } from '@mailcast/core';

/** Node's clock and timers, for the send engine and the use cases that wait. */
export class SystemTimers implements Timers {
  now(): number {
    return Date.now();
  }

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => setTimeout(resolve, ms));
  }

  after(ms: number, fn: () => void, options: { weak?: boolean } = {}): () => void {
    const timer = setTimeout(fn, ms);
    if (options.weak === true) timer.unref();
    return () => clearTimeout(timer);
  }

  every(ms: number, fn: () => void, options: { weak?: boolean } = {}): () => void {
    const timer = setInterval(fn, ms);
    if (options.weak === true) timer.unref();
    return () => clearInterval(timer);
  }
}
