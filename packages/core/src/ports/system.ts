import type { Timers as EngineTimers } from '@mailcast/send-engine';

export interface Clock {
  now(): Date;
}
export const Clock = Symbol.for('mailcast.Clock');

export interface RandomSource {
  bytes(length: number): Uint8Array;
}
export const RandomSource = Symbol.for('mailcast.RandomSource');

/** Time in milliseconds and timers: the send engine's, and every wait a use case makes. */
export type Timers = EngineTimers;
export const Timers = Symbol.for('mailcast.Timers');
