import type { AddressInfo, Socket } from 'node:net';
import PostalMime from 'postal-mime';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';

export interface CapturedMessage {
  from: string;
  to: string[];
  raw: Buffer;
  receivedAt: Date;
}

/** Lets a test answer a recipient with an SMTP error, e.g. 550 (hard bounce) or 451 (delay). */
export type RecipientVerdict = { code: number; message: string } | undefined;

export interface SmtpCaptureOptions {
  port?: number;
  host?: string;
  onMessage?: (message: CapturedMessage) => void | Promise<void>;
  verdictFor?: (recipient: string) => RecipientVerdict;
  /**
   * Fault injection: called with the ordinal (1, 2, …) of each TCP connection; `true` destroys
   * the socket before the greeting, as a crashed or overloaded server would.
   */
  dropConnection?: (ordinal: number) => boolean;
}

export interface SmtpCapture {
  port: number;
  messages: CapturedMessage[];
  /** SMTP connections opened so far (pooled senders open few). */
  connections(): number;
  /** Connections destroyed by `dropConnection` or `dropOpenConnections`. */
  dropped(): number;
  /**
   * Fault injection: destroys every open connection now, mid-session (a server crash). Returns
   * how many. A message whose data arrived but whose answer had not yet been written is kept,
   * and its sender, seeing no answer, may send it again: SMTP's own ambiguity.
   */
  dropOpenConnections(): number;
  /** Resolves once at least `count` messages arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<CapturedMessage[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server that accepts everything and keeps it: the mailbox of `npm start` and of
 * the tests. Plain SMTP with optional AUTH (any credentials), on loopback by default.
 */
export async function startSmtpCapture(options: SmtpCaptureOptions = {}): Promise<SmtpCapture> {
  const messages: CapturedMessage[] = [];
  const waiters = new Set<() => void>();
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 25 * 1024 * 1024,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'capture' });
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const verdict = options.verdictFor?.(address.address);
      if (verdict) {
        const error = Object.assign(new Error(verdict.message), { responseCode: verdict.code });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const message: CapturedMessage = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          receivedAt: new Date(),
        };
        messages.push(message);
        Promise.resolve(options.onMessage?.(message))
          .catch(() => undefined)
          .finally(() => {
            for (const wake of waiters) wake();
            callback();
          });
      });
    },
  });
  server.on('error', () => undefined);
  let accepted = 0;
  let dropped = 0;
  // Registered after smtp-server's own listener, so it runs before any greeting is written.
  const open = new Set<Socket>();
  server.server.on('connection', (socket: Socket) => {
    accepted += 1;
    socket.on('error', () => undefined);
    if (options.dropConnection?.(accepted)) {
      dropped += 1;
      socket.destroy();
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    port,
    messages,
    connections: () => connections,
    dropped: () => dropped,
    dropOpenConnections() {
      const sockets = [...open];
      for (const socket of sockets) socket.destroy();
      dropped += sockets.length;
      return sockets.length;
    },
    waitFor(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(messages);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} messages, got ${messages.length} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ParsedEmail {
  messageId: string | undefined;
  subject: string | undefined;
  from: { address: string | undefined; name: string | undefined } | undefined;
  replyTo: string | undefined;
  text: string | undefined;
  html: string | undefined;
  /** Header names lower-cased, values as sent (unfolded). */
  headers: Record<string, string>;
}

/** Parses a captured message (MIME, encodings, multipart) the way a mail client would. */
export async function parseEmail(raw: Buffer | string): Promise<ParsedEmail> {
  const email = await PostalMime.parse(raw);
  const headers: Record<string, string> = {};
  for (const header of email.headers) headers[header.key.toLowerCase()] = header.value;
  return {
    messageId: email.messageId,
    subject: email.subject,
    from: email.from ? { address: email.from.address, name: email.from.name } : undefined,
    replyTo: email.replyTo?.[0]?.address,
    text: email.text,
    html: email.html,
    headers,
  };
}
