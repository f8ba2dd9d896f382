/**
 * Email from the installation itself, not from a channel (docs/teams.md, The system sender):
 * password reset links and invitations. Sent from MAILCAST_SYSTEM_FROM through the first active
 * email server of the installation.
 */
export interface SystemMail {
  send(message: { to: string; subject: string; text: string; html?: string }): Promise<void>;
}
export const SystemMail = Symbol.for('mailcast.SystemMail');
