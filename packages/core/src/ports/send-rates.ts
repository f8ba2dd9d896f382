import type { SendRateStore as Store } from '@mailcast/send-engine';

export type { SendRateChange } from '@mailcast/send-engine';
/** Each limited server's shared sending state (the send engine's port). */
export type SendRateStore = Store;
export const SendRateStore = Symbol.for('mailcast.SendRateStore');
