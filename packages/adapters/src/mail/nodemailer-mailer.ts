import type { Clearance, EmailServer, MailOutcome, Mailer, OutgoingEmail } from '@mailcast/core';
import { smtpFailureKind } from '@mailcast/domain';
import type DKIM from 'nodemailer/lib/dkim';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { Readable } from 'node:stream';
import { REFUSED_DESTINATION_CODE } from '../http/address-policy';
import { composeMessage } from './compose';
import { ConnectionSlots } from './connection-slots';
import { pinSmtpHost, type SmtpAddressOptions } from './smtp-destination';
import { SmtpPool, type SmtpError } from './smtp-pool';

/**
 * Pooled connections per email server and dispatcher, unless configured
 * (MAILCAST_SMTP_CONNECTIONS). nodemailer sends one message per connection at a time, several
 * round trips each, so connections, not CPU, set the rate to a distant server. 20 suits the
 * sending services; a server that allows fewer connections needs the setting.
 */
export const DEFAULT_CONNECTIONS_PER_SERVER = 20;

/**
 * nodemailer's codes for a failed TLS upgrade (STARTTLS required but not offered, or a bad
 * certificate) and a refused login: a misconfigured server, never a verdict on the recipient.
 */
const SERVER_FAILURES = new Set(['ETLS', 'EAUTH', REFUSED_DESTINATION_CODE]);

/**
 * How nodemailer connects to a server (docs/email-servers.md): `starttls` requires the upgrade
 * (requireTLS), so a server that does not offer it never sees AUTH; `none` never upgrades.
 * Certificates are verified in both TLS modes. The host is not here: each connection goes to
 * the address pinSmtpHost resolved for it. Credentials go only with a password: a username
 * alone (a password cleared by a change of host, port or tls) is no reason to send AUTH.
 */
export function smtpConnectionOptions(server: EmailServer): SMTPTransport.Options {
  return {
    port: server.port,
    secure: server.tls === 'implicit',
    requireTLS: server.tls === 'starttls',
    ignoreTLS: server.tls === 'none',
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
    ...(server.username && server.password ? { auth: { user: server.username, pass: server.password } } : {}),
  };
}

/** Every message through a server with a DKIM key is signed with it. */
function dkimOptions(server: EmailServer): DKIM.Options | null {
  if (server.dkimPrivateKey === null || server.dkimDomain === null || server.dkimSelector === null) return null;
  return { domainName: server.dkimDomain, keySelector: server.dkimSelector, privateKey: server.dkimPrivateKey };
}

/** What a failed send means: a server misconfiguration, a temporary or a permanent rejection. */
function failureOutcome(error: unknown): MailOutcome {
  const smtp = error as SmtpError;
  if (smtp.code !== undefined && SERVER_FAILURES.has(smtp.code)) {
    // The server's fault, not the recipient's: a 5xx here is no bounce, and the send is retried.
    return { kind: 'rejected', permanent: false, code: null, message: `${smtp.message ?? smtp.code}${smtp.response ? `: ${smtp.response}` : ''}` };
  }
  const code = typeof smtp.responseCode === 'number' ? smtp.responseCode : null;
  return {
    kind: 'rejected',
    permanent: smtpFailureKind(code) === 'permanent',
    code,
    message: smtp.response ?? smtp.message ?? String(error),
  };
}

/**
 * One pool of SMTP sessions per email server (SmtpPool): connections are reused across
 * messages (and across recipients of a broadcast) instead of a handshake per email. A server's
 * settings are part of the pool key, so an edited server gets a fresh pool.
 */
export class NodemailerMailer implements Mailer {
  private readonly pools = new Map<string, { pool: SmtpPool; slots: ConnectionSlots }>();

  constructor(
    private readonly addresses: SmtpAddressOptions,
    private readonly connectionsPerServer: number = DEFAULT_CONNECTIONS_PER_SERVER,
  ) {}

  private poolFor(server: EmailServer): { pool: SmtpPool; slots: ConnectionSlots } {
    const key = `${server.id}|${server.updatedAt.getTime()}|${server.host}|${server.port}|${server.tls}|${server.username ?? ''}|${server.password ?? ''}`;
    let entry = this.pools.get(key);
    if (entry === undefined) {
      const { auth, ...connection } = smtpConnectionOptions(server);
      const pool = new SmtpPool({
        connection,
        pin: () => pinSmtpHost(server, this.addresses),
        auth: auth?.user ? { user: auth.user, pass: auth.pass ?? '' } : null,
        dkim: dkimOptions(server),
      });
      entry = { pool, slots: new ConnectionSlots(this.connectionsPerServer) };
      this.pools.set(key, entry);
    }
    return entry;
  }

  /**
   * The message is composed to one buffer first and handed to the session whole: it goes to the
   * socket in a few large writes instead of one per MIME part and line (cheaper for both ends,
   * bench/NOTES.md), and nothing composes it twice.
   * It then waits for a connection slot, where `signal` can still withdraw it. With `clearance`,
   * the content is a stream that gives nothing until the clearance resolves (the envelope goes
   * meanwhile) and fails, breaking the transaction off, if it rejects.
   */
  async send(server: EmailServer, email: OutgoingEmail, signal?: AbortSignal, clearance?: Clearance): Promise<MailOutcome> {
    const { pool, slots } = this.poolFor(server);
    let raw: Buffer;
    try {
      raw = await composeMessage(email);
    } catch (error) {
      return failureOutcome(error);
    }
    await slots.take(signal);
    const refusal: { error?: unknown } = {};
    try {
      const content = clearance ? heldContent(raw, clearance, refusal) : raw;
      const info = await pool.send({ from: email.envelopeFrom ?? email.from.email, to: [email.to] }, content);
      return { kind: 'accepted', response: String(info.response ?? '') };
    } catch (error) {
      if ('error' in refusal) throw refusal.error;
      return failureOutcome(error);
    } finally {
      slots.give();
    }
  }

  async close(): Promise<void> {
    for (const { pool } of this.pools.values()) pool.close();
    this.pools.clear();
  }
}

/**
 * The message's content as a stream that gives nothing until `clearance` resolves, then all of
 * it; if the clearance rejects, the stream fails (its error kept in `refusal`) and nodemailer
 * breaks the transaction off without the content's end, so the server takes nothing.
 */
function heldContent(raw: Buffer, clearance: Clearance, refusal: { error?: unknown }): Readable {
  let asked = false;
  return new Readable({
    read() {
      if (asked) return;
      asked = true;
      clearance().then(
        () => {
          this.push(raw);
          this.push(null);
        },
        (error: unknown) => {
          refusal.error = error;
          this.destroy(error instanceof Error ? error : new Error(String(error)));
        },
      );
    },
  });
}
