import type { Mailer as EngineMailer, SendEngine as Engine } from '@mailcast/send-engine';
import type { EmailServer } from './entities/channel';

export { MessageWithdrawn, type Clearance, type MailAddress, type MailOutcome, type OutgoingEmail } from '@mailcast/send-engine';

/** Hands messages to email servers (the send engine's port, for this application's servers). */
export type Mailer = EngineMailer<EmailServer>;
export const Mailer = Symbol.for('mailcast.Mailer');

/**
 * The mailer of transactional email: the same port, bound to connections of its own, so a
 * transactional never waits behind a broadcast's messages queued on the shared pool.
 */
export const PriorityMailer = Symbol.for('mailcast.PriorityMailer');

/** The process's send engine: every message of every use case goes through it. */
export type SendEngine = Engine<EmailServer>;
export const SendEngine = Symbol.for('mailcast.SendEngine');
