import type { SendRateState } from '@mailcast/domain';

/** What a change of a server's shared sending state decided: the new state (null: none) and an answer. */
export interface SendRateChange<T> {
  state: SendRateState | null;
  result: T;
}

/**
 * The sending-rate state of each limited email server, shared by every dispatcher
 * (docs/sending-limits.md). Times are milliseconds on the store's clock (the database's), so
 * dispatchers whose clocks disagree still hand out one sequence of slots.
 */
export interface SendRateStore {
  /**
   * Compare-and-set: applies `change` to the server's state as of `now` (store clock) and writes
   * it only if nobody wrote in between; otherwise reads the state again and applies `change`
   * anew. Answers the result of the change that was written, `offsetMs`, the store's clock
   * minus this process's (Date.now), as last measured, and `uncertaintyMs`, how far that
   * measure may be off (half its round trip).
   */
  change<T>(
    serverId: number,
    change: (state: SendRateState, now: number) => SendRateChange<T>,
  ): Promise<{ result: T; offsetMs: number; uncertaintyMs: number }>;
}
export const SendRateStore = Symbol.for('mailcast.SendRateStore');
