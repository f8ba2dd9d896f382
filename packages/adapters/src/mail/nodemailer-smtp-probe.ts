import type { EmailServer, SmtpCheck, SmtpProbe } from '@mailcast/core';
import nodemailer from 'nodemailer';
import { smtpConnectionOptions } from './nodemailer-mailer';
import { pinSmtpHost, type SmtpAddressOptions } from './smtp-destination';

/**
 * The one answer to every failed test_connection (docs/email-servers.md, "test_connection"):
 * refused, silent, not SMTP, TLS, AUTH or an address the policy refuses all read alike, so the
 * probe tells nothing of what listens where, and never repeats a server's words.
 */
export const SMTP_CHECK_FAILED = 'Could not connect to the server, complete its TLS handshake or authenticate (check host, port, tls and credentials)';

/** How long a failed check takes, always: the same for a closed port and for a silent one. */
export const DEFAULT_PROBE_FAILURE_MS = 10_000;

/**
 * nodemailer's verify(): connect, EHLO, the TLS the server is configured for, AUTH when it has
 * credentials, QUIT. No MAIL FROM, so nothing can be sent. The connection goes to the address
 * pinned by the address policy. A success answers when it happens; a failure, whenever it
 * happens, answers `failureMs` after the check began: a closed port (refused in a millisecond)
 * is then indistinguishable from a filtered or silent one (cut off at the same moment).
 */
export class NodemailerSmtpProbe implements SmtpProbe {
  private readonly failureMs: number;

  constructor(
    private readonly addresses: SmtpAddressOptions,
    options: { failureMs?: number } = {},
  ) {
    this.failureMs = options.failureMs ?? DEFAULT_PROBE_FAILURE_MS;
  }

  async check(server: EmailServer): Promise<SmtpCheck> {
    let answered = false;
    let closeTransport = () => {};
    const attempt = (async () => {
      const pinned = await pinSmtpHost(server, this.addresses);
      if (answered) throw new Error('answered already'); // the look-up outlasted the wait
      const transport = nodemailer.createTransport({
        ...smtpConnectionOptions(server),
        ...pinned,
        // Within the fixed wait, so nodemailer's own time-outs never outlast it.
        connectionTimeout: this.failureMs,
        greetingTimeout: this.failureMs,
        socketTimeout: this.failureMs,
      });
      closeTransport = () => transport.close();
      await transport.verify();
    })();
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.failureMs)));
    try {
      const outcome = await Promise.race([
        attempt.then(
          () => 'ok' as const,
          () => 'failed' as const,
        ),
        outOfTime,
      ]);
      if (outcome === 'ok') {
        const auth = server.username && server.password ? `, authenticated as ${server.username}` : '';
        return { ok: true, message: `Connected to ${server.host}:${server.port} (tls ${server.tls})${auth}` };
      }
      // A failure before the deadline waits for it.
      if (outcome === 'failed') await outOfTime;
      return { ok: false, message: SMTP_CHECK_FAILED };
    } finally {
      answered = true;
      clearTimeout(timer);
      closeTransport();
      attempt.catch(() => {});
    }
  }
}
