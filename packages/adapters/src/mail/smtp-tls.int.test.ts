import type { OutgoingEmail } from '@mailcast/core';
import { anEmailServer } from '@mailcast/testkit';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { NodemailerMailer } from './nodemailer-mailer';

/** TLS modes (docs/email-servers.md): credentials are never sent where STARTTLS is not offered. */
describe('NodemailerMailer and a server that offers no STARTTLS', () => {
  const auths: string[] = [];
  const received: string[] = [];
  let server: SMTPServer;
  let port: number;
  let mailer: NodemailerMailer;

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: true,
      logger: false,
      onAuth(auth, _session, callback) {
        auths.push(`${auth.username}:${auth.password}`);
        callback(null, { user: auth.username });
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          received.push(session.envelope.rcptTo[0]!.address);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
    mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false }, 1);
  });
  afterAll(async () => {
    await mailer.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const email = (to: string): OutgoingEmail => ({
    messageId: `<${to}>`,
    from: { email: 'news@example.com', name: null },
    to,
    replyTo: null,
    subject: 's',
    text: 't',
    html: null,
    headers: {},
  });

  it('with tls starttls: refuses to go on, and the server never receives AUTH nor the message', async () => {
    const outcome = await mailer.send(anEmailServer({ id: 1, port, tls: 'starttls', username: 'u', password: 'clear-text-secret' }), email('a@example.com'));
    // The server's fault, not the recipient's: retried later, never a bounce.
    expect(outcome).toMatchObject({ kind: 'rejected', permanent: false, code: null, message: expect.stringMatching(/STARTTLS/) });
    expect(auths).toEqual([]);
    expect(received).toEqual([]);
  });

  it('with tls implicit: no TLS handshake, no AUTH', async () => {
    const outcome = await mailer.send(anEmailServer({ id: 2, port, tls: 'implicit', username: 'u', password: 'clear-text-secret' }), email('b@example.com'));
    expect(outcome.kind).toBe('rejected');
    expect(auths).toEqual([]);
  });

  it('with tls none (a loopback server): sends, authenticating in the clear as configured', async () => {
    const outcome = await mailer.send(anEmailServer({ id: 3, port, tls: 'none', username: 'u', password: 'loopback-pass' }), email('c@example.com'));
    expect(outcome.kind).toBe('accepted');
    expect(auths).toEqual(['u:loopback-pass']);
    expect(received).toEqual(['c@example.com']);
  });
});
