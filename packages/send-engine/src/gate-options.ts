/** How a dispatcher takes its share of a server's limits (docs/sending-limits.md). */
export interface GateOptions {
  /** Slots are reserved at most this far ahead, so dispatchers share a server's rate finely. */
  horizonMs: number;
  /** Slots reserved per round trip, at most. */
  maxBatch: number;
  /** A message whose slot is further away than this goes back to the queue until then. */
  deferBeyondMs: number;
  /** Throttling answers one message may get before it goes back to the queue. */
  throttleRetries: number;
  /** How long a message that kept getting throttling answers waits in the queue. */
  throttleDeferMs: number;
  /** The first and the longest wait before an unreachable server is tried again. */
  backoffMs: readonly [number, number];
  /** Answers are written for the other dispatchers this soon, when no reservation carries them. */
  flushMs: number;
  /** A dispatcher out of permits asks again this often. */
  permitPollMs: number;
  /**
   * A message starts up to this long before its slot: its connection and envelope are made
   * meanwhile and its content goes at the slot, so the permit is not held through their round trips.
   */
  leadMs: number;
}

export const DEFAULT_GATE_OPTIONS: GateOptions = {
  horizonMs: 1_000,
  maxBatch: 128,
  deferBeyondMs: 30_000,
  throttleRetries: 10,
  throttleDeferMs: 10_000,
  backoffMs: [1_000, 60_000],
  flushMs: 50,
  permitPollMs: 25,
  leadMs: 20,
};
