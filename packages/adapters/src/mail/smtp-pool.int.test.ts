import { eventually } from '@mailcast/testkit';
import { Readable } from 'node:stream';
import { SMTPServer } from 'smtp-server';
import { SmtpPool } from './smtp-pool';

const message = (n: number) =>
  Readable.from([Buffer.from(`From: a@example.com\r\nTo: b@example.org\r\nSubject: ${n}\r\nMessage-ID: <${n}@example.com>\r\n\r\nbody ${n}\r\n`)]);
const to = (address: string) => ({ from: 'a@example.com', to: [address] });

/** A server that keeps what it is sent and counts sessions; `socketTimeout` drops idle ones, as real servers do. */
async function startServer(socketTimeout?: number) {
  const seen = { sessions: 0, ended: 0, received: [] as string[] };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...(socketTimeout === undefined ? {} : { socketTimeout }),
    onConnect(_session, callback) {
      seen.sessions++;
      callback();
    },
    onClose() {
      seen.ended++;
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('gone@')) return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        seen.received.push(/Subject: (\S+)/.exec(Buffer.concat(chunks).toString())![1]!);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as { port: number }).port;
  return {
    seen,
    pool: () => new SmtpPool({ connection: { port, ignoreTLS: true }, pin: async () => ({ host: '127.0.0.1' }), auth: null, dkim: null }),
    stop: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

describe('SmtpPool against a real SMTP server (docs/broadcasts-and-sending.md, The mailer)', () => {
  it('reuses a session for the next message, and ends it on close', async () => {
    const server = await startServer();
    const smtp = server.pool();
    await smtp.send(to('b@example.org'), message(1));
    await smtp.send(to('b@example.org'), message(2));
    expect(server.seen).toEqual({ sessions: 1, ended: 0, received: ['1', '2'] });
    smtp.close();
    await eventually(async () => server.seen.ended === 1 || undefined);
    expect(smtp.idleSessions).toBe(0);
    await server.stop();
  });

  it('sends over a new session, once, when the server closed the idle one', async () => {
    const server = await startServer(300);
    const smtp = server.pool();
    await smtp.send(to('b@example.org'), message(1));
    await eventually(async () => server.seen.ended === 1 || undefined);
    await smtp.send(to('b@example.org'), message(2));
    smtp.close();
    expect(server.seen.received).toEqual(['1', '2']);
    expect(server.seen.sessions).toBe(2);
    await server.stop();
  });

  it('keeps the session after a refused recipient, and reports the refusal', async () => {
    const server = await startServer();
    const smtp = server.pool();
    await expect(smtp.send(to('gone@example.org'), message(1))).rejects.toMatchObject({ code: 'EENVELOPE', responseCode: 550 });
    // The session is reset (RSET) and kept, not dropped.
    await eventually(async () => smtp.idleSessions === 1 || undefined);
    await smtp.send(to('b@example.org'), message(2));
    smtp.close();
    expect(server.seen.received).toEqual(['2']);
    expect(server.seen.sessions).toBe(1);
    await server.stop();
  });

  it('rejects with the connection error when the server cannot be reached', async () => {
    const server = await startServer();
    const smtp = server.pool();
    await server.stop();
    await expect(smtp.send(to('b@example.org'), message(1))).rejects.toMatchObject({ code: expect.stringMatching(/ECONNECTION|ESOCKET/) });
    smtp.close();
  });
});
