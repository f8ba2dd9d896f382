/**
 * Mail the installation sends to its own users (docs/teams.md, System mail): password reset
 * links, say. Not a channel's mail: no suppression list, no tracking, no unsubscribe link. The
 * adapter (t37-signin) sends from MAILCAST_SYSTEM_FROM through the first active email server.
 */
export interface SystemMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SystemMail {
  /** Resolves once the message is accepted for delivery; rejects when it could not be sent. */
  send(message: SystemMessage): Promise<void>;
}
export const SystemMail = Symbol.for('mailcast.SystemMail');

/** Where the dashboard's own pages are (under PUBLIC_URL), for links in system mail. */
export interface DashboardLinks {
  passwordReset(token: string): string;
}
export const DashboardLinks = Symbol.for('mailcast.DashboardLinks');
