import type { EmailServer, SmtpCheck, SmtpProbe } from '@mailcast/core';
import nodemailer from 'nodemailer';
import { smtpConnectionOptions } from './nodemailer-mailer';

/**
 * nodemailer's verify(): connect, EHLO, the TLS the server is configured for, AUTH when it has
 * credentials, QUIT. No MAIL FROM, so nothing can be sent. Time-outs are short: a person waits.
 */
export class NodemailerSmtpProbe implements SmtpProbe {
  async check(server: EmailServer): Promise<SmtpCheck> {
    const transport = nodemailer.createTransport({
      ...smtpConnectionOptions(server),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
    });
    try {
      await transport.verify();
      const auth = server.username ? `, authenticated as ${server.username}` : '';
      return { ok: true, message: `Connected to ${server.host}:${server.port} (tls ${server.tls})${auth}` };
    } catch (error) {
      const e = error as { message?: string; response?: string };
      // The server's words or nodemailer's; neither carries the password.
      return { ok: false, message: e.response ?? e.message ?? String(error) };
    } finally {
      transport.close();
    }
  }
}
