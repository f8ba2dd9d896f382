import { SystemTimers } from '@mailcast/adapters';
import type { Clock, Timers } from '@mailcast/core';

/** Node's timers on a clock that moves only when the test says so. */
class MovedTimers extends SystemTimers {
  constructor(private readonly read: () => number) {
    super();
  }
  override now(): number {
    return this.read();
  }
}

/**
 * A clock that moves only when a test says so, for both time ports: the use cases' Clock and
 * the send engine's Timers (leases, slices). Waits stay real, so work still runs.
 */
export function testClock(start = Date.now()): { clock: Clock; timers: Timers; advance(ms: number): void; current(): number } {
  let current = start;
  return {
    clock: { now: () => new Date(current) },
    timers: new MovedTimers(() => current),
    advance: (ms) => void (current += ms),
    current: () => current,
  };
}
