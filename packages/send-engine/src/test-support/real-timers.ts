import type { RandomSource, Timers } from '../ports';

/** Node's own timers, for the engine's unit tests (the adapters' SystemTimers is the same). */
export const realTimers: Timers = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  every: (ms, fn) => {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  },
};

/** Bytes counting up: names differ, and a test can read them. */
export function countingRandom(): RandomSource {
  let n = 0;
  return { bytes: (length) => Uint8Array.from({ length }, () => n++ % 256) };
}
