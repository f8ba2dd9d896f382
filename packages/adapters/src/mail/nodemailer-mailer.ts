import type { EmailServer, MailOutcome, Mailer, OutgoingEmail } from '@mailcast/core';
import { smtpFailureKind } from '@mailcast/domain';
import nodemailer, { type Transporter } from 'nodemailer';

interface SmtpError {
  responseCode?: number;
  response?: string;
  message?: string;
}

/** Also the most messages one dispatcher has in flight per server (CONTRACT: exactly once). */
export const MAX_CONNECTIONS_PER_SERVER = 5;

/**
 * nodemailer with one pooled transport per email server: connections are reused across
 * messages (and across recipients of a broadcast) instead of a handshake per email. A server's
 * settings are part of the pool key, so an edited server gets a fresh pool.
 */
export class NodemailerMailer implements Mailer {
  private readonly pools = new Map<string, Transporter>();

  private transportFor(server: EmailServer): Transporter {
    const key = JSON.stringify([server.id, server.host, server.port, server.secure, server.username, server.password]);
    let transport = this.pools.get(key);
    if (transport === undefined) {
      transport = nodemailer.createTransport({
        pool: true,
        host: server.host,
        port: server.port,
        secure: server.secure,
        maxConnections: MAX_CONNECTIONS_PER_SERVER,
        maxMessages: Infinity,
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
        ...(server.username ? { auth: { user: server.username, pass: server.password ?? '' } } : {}),
      });
      this.pools.set(key, transport);
    }
    return transport;
  }

  async send(server: EmailServer, email: OutgoingEmail): Promise<MailOutcome> {
    try {
      const info = await this.transportFor(server).sendMail({
        messageId: email.messageId,
        from: email.from.name ? { name: email.from.name, address: email.from.email } : email.from.email,
        to: email.to,
        ...(email.replyTo ? { replyTo: email.replyTo } : {}),
        subject: email.subject,
        text: email.text,
        ...(email.html ? { html: email.html } : {}),
        headers: { ...email.headers },
      });
      return { kind: 'accepted', response: String(info.response ?? '') };
    } catch (error) {
      const smtp = error as SmtpError;
      const code = typeof smtp.responseCode === 'number' ? smtp.responseCode : null;
      return {
        kind: 'rejected',
        permanent: smtpFailureKind(code) === 'permanent',
        code,
        message: smtp.response ?? smtp.message ?? String(error),
      };
    }
  }

  async close(): Promise<void> {
    for (const transport of this.pools.values()) transport.close();
    this.pools.clear();
  }
}
