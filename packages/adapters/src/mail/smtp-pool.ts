import DKIM from 'nodemailer/lib/dkim';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { Readable } from 'node:stream';
import type { PinnedSmtpHost } from './smtp-destination';

/** What nodemailer's SMTP errors carry: its own code, and the server's answer when there was one. */
export interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** The connection ended under a message that had not started: nothing reached the server. */
const endedUnder = (error: SmtpError) => error.responseCode === 421 || error.code === 'ECONNECTION' || error.code === 'ESOCKET' || error.code === 'ETIMEDOUT';

/** The server refused this message (its envelope or content); the session itself is fine. */
const refusedMessage = (error: SmtpError) => (error.code === 'EENVELOPE' || error.code === 'EMESSAGE') && error.responseCode !== 421;

interface Connection {
  smtp: SMTPConnection;
  sending: boolean;
  ended: boolean;
}

export interface SmtpPoolOptions {
  connection: SMTPConnection.Options;
  /** Where each new session goes: resolved and checked per connect (pinSmtpHost). */
  pin: () => Promise<PinnedSmtpHost>;
  auth: { user: string; pass: string } | null;
  dkim: DKIM.Options | null;
}

/**
 * Open SMTP sessions to one server, reused message after message, over nodemailer's
 * SMTPConnection. The messages come composed (docs/broadcasts-and-sending.md, "The mailer"): this pool
 * only signs them (DKIM) and carries them, so a message costs its SMTP round trips and not a
 * second composition. Callers bound how many messages it carries at once (ConnectionSlots); each
 * holds one session, an idle one or a new one.
 */
export class SmtpPool {
  private readonly idle = new Set<Connection>();
  private readonly signer: DKIM | null;
  private closed = false;

  constructor(private readonly options: SmtpPoolOptions) {
    this.signer = options.dkim === null ? null : new DKIM(options.dkim);
  }

  /**
   * Carries `content` for `envelope` and resolves with the server's answer, or rejects with
   * nodemailer's SMTP error. A session the server closed while it was idle is noticed when the
   * message goes over it: if not a byte of the content was read, the message goes over another
   * (content is carried as a stream, so that "read" is known).
   */
  async send(envelope: SMTPConnection.Envelope, content: Buffer | Readable): Promise<SMTPConnection.SentMessageInfo> {
    const stream = Buffer.isBuffer(content) ? whole(content) : content;
    const message = this.signer === null ? stream : this.signer.sign(stream);
    for (;;) {
      const reused = this.takeIdle();
      const connection = reused ?? (await this.connect());
      connection.sending = true;
      try {
        const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
          connection.smtp.send(envelope, message, (error, sent) => (error ? reject(error) : resolve(sent))),
        );
        this.release(connection);
        return info;
      } catch (error) {
        connection.sending = false;
        const smtpError = error as SmtpError;
        if (reused !== undefined && message.readableDidRead === false && endedUnder(smtpError)) {
          this.discard(connection);
          continue;
        }
        if (refusedMessage(smtpError) && !connection.ended) this.resetAndRelease(connection);
        else this.discard(connection);
        throw error;
      }
    }
  }

  /** Sessions open and waiting for a message. */
  get idleSessions(): number {
    return this.idle.size;
  }

  /** Ends every session: idle ones now, busy ones when their message is done. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle) this.discard(connection, true);
  }

  private takeIdle(): Connection | undefined {
    for (const connection of this.idle) {
      this.idle.delete(connection);
      if (!connection.ended) return connection;
    }
    return undefined;
  }

  private async connect(): Promise<Connection> {
    const pinned = await this.options.pin();
    return new Promise<Connection>((resolve, reject) => {
      const smtp = new SMTPConnection({ ...this.options.connection, ...pinned });
      const connection: Connection = { smtp, sending: false, ended: false };
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        this.discard(connection);
        reject(error);
      };
      const ready = () => {
        if (settled) return;
        settled = true;
        resolve(connection);
      };
      smtp.on('error', (error) => {
        // During a message its callback gets the error; an idle session is dropped.
        if (!settled) fail(error);
        else if (!connection.sending) this.discard(connection);
      });
      smtp.once('end', () => {
        connection.ended = true;
        this.idle.delete(connection);
        fail(Object.assign(new Error('Connection closed before it was ready'), { code: 'ECONNECTION' }));
      });
      smtp.connect((error) => {
        if (error) return fail(error);
        const auth = this.options.auth;
        // As nodemailer's own pool: credentials go only to a server that offers AUTH.
        if (auth === null || !(smtp as SMTPConnection & { allowsAuth?: boolean }).allowsAuth) return ready();
        smtp.login({ credentials: { user: auth.user, pass: auth.pass } }, (loginError) => (loginError ? fail(loginError) : ready()));
      });
    });
  }

  private release(connection: Connection): void {
    connection.sending = false;
    if (this.closed || connection.ended) this.discard(connection, true);
    else this.idle.add(connection);
  }

  private resetAndRelease(connection: Connection): void {
    connection.smtp.reset((error) => (error ? this.discard(connection) : this.release(connection)));
  }

  /** Drops a session: with QUIT when it is in good order, else by closing its socket. */
  private discard(connection: Connection, graceful = false): void {
    this.idle.delete(connection);
    if (connection.ended) return;
    connection.ended = true;
    if (graceful) connection.smtp.quit();
    else connection.smtp.close();
  }
}

/** A composed message as a stream that gives it in one piece. */
function whole(raw: Buffer): Readable {
  return new Readable({
    read() {
      this.push(raw);
      this.push(null);
    },
  });
}
