/** Counts requests per token in fixed windows, shared by every api replica. */
export interface RateLimitCounter {
  /** Counts one request in the window starting at `windowStart`; returns the window's count. */
  hit(tokenId: number, windowStart: Date): Promise<number>;
}
export const RateLimitCounter = Symbol.for('mailcast.RateLimitCounter');
