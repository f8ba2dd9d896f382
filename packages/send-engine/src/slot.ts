import type { SendRateState } from '@mailcast/domain';
import type { Clearance } from './ports';

/**
 * A message's place in a lane: `clearance`, if any, is what its content waits for (Mailer.send);
 * `done` is called once the server answered, or the message ended without it.
 */
export interface SlotTicket {
  clearance?: Clearance;
  done: () => void;
}

/** A granted slot: when to use it on this process's clock, and its instant on the store's (its permit's). */
export interface Slot {
  at: number;
  booked: number;
}

/** A change of a server's shared state: the new state (null: none written) and an answer. */
export type Change<T> = (state: SendRateState, now: number) => { state: SendRateState | null; result: T };
