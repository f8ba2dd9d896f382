export interface Clock {
  now(): Date;
}
export const Clock = Symbol.for('mailcast.Clock');

export interface RandomSource {
  bytes(length: number): Uint8Array;
}
export const RandomSource = Symbol.for('mailcast.RandomSource');
