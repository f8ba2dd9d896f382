import type { SystemMail, SystemMessage } from '@mailcast/core';

/**
 * A SystemMail that keeps what it is given, for tests of what sends system mail (a user created
 * with `send_password_reset`, say); the real sender is an adapter with its own tests.
 */
export class RecordingSystemMail implements SystemMail {
  readonly sent: SystemMessage[] = [];

  async send(message: SystemMessage): Promise<void> {
    this.sent.push(message);
  }
}
