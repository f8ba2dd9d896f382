import type { Mailer, OutgoingEmail } from '@mailcast/core';
import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { anEmailServer } from '@mailcast/testkit';
import { NodemailerMailer } from './nodemailer-mailer';
import { DnsSmtpHosts, pinSmtpHost, type SmtpAddressOptions } from './smtp-destination';
import { ThreadedMailer } from './threaded-mailer';

const STRICT: SmtpAddressOptions = { allowPrivate: false, allowPlaintext: false };
const LOOPBACK: SmtpAddressOptions = { allowPrivate: true, allowPlaintext: false };

const MAILERS: Array<[string, (addresses: SmtpAddressOptions) => Mailer]> = [
  ['NodemailerMailer', (addresses) => new NodemailerMailer(addresses, 1)],
  ['ThreadedMailer', (addresses) => new ThreadedMailer({ threads: 1, connectionsPerServer: 1, addresses })],
];

const email = (): OutgoingEmail => ({
  messageId: `<${Math.random().toString(36).slice(2)}@mailcast.test>`,
  from: { email: 'news@example.com', name: null },
  to: 'reader@example.com',
  replyTo: null,
  subject: 's',
  text: 't',
  html: null,
  headers: {},
});

/**
 * Issue 34, finding 4, the dispatcher's side: it delivered through any internal host. Every
 * session is now pinned to an address the policy allows (docs/email-servers.md, "Addresses").
 */
describe.each(MAILERS)('%s and the address policy at connect', (_name, makeMailer) => {
  let smtp: SmtpCapture;
  beforeAll(async () => {
    smtp = await startSmtpCapture();
  });
  afterAll(() => smtp.close());

  it.each([['127.0.0.1'], ['127.1'], ['0x7f000001'], ['localhost'], ['mail.localhost']])(
    'without SMTP_ALLOW_PRIVATE, sends nothing to %s: a temporary server failure, not a bounce',
    async (host) => {
      const mailer = makeMailer(STRICT);
      try {
        const before = smtp.connections();
        const outcome = await mailer.send(anEmailServer({ host, port: smtp.port, username: 'u', password: 'secret-1' }), email());
        expect(outcome).toEqual({
          kind: 'rejected',
          permanent: false,
          code: null,
          message: expect.stringMatching(/^email server host refused: .* not allowed$/),
        });
        expect(smtp.connections()).toBe(before);
      } finally {
        await mailer.close();
      }
    },
  );

  it('with SMTP_ALLOW_PRIVATE, a *.localhost name is delivered to loopback without DNS', async () => {
    const mailer = makeMailer(LOOPBACK);
    try {
      const outcome = await mailer.send(anEmailServer({ host: 'mail.localhost', port: smtp.port }), email());
      expect(outcome).toEqual({ kind: 'accepted', response: expect.stringMatching(/^250/) });
    } finally {
      await mailer.close();
    }
  });

  it('refuses tls none to an address that is not loopback, before connecting', async () => {
    const mailer = makeMailer(LOOPBACK);
    try {
      const outcome = await mailer.send(anEmailServer({ host: '192.0.2.10', port: smtp.port, tls: 'none' }), email());
      expect(outcome).toEqual({
        kind: 'rejected',
        permanent: false,
        code: null,
        message: 'email server host refused: tls none to an address that is not loopback',
      });
    } finally {
      await mailer.close();
    }
  });
});

describe('pinSmtpHost', () => {
  it.each([
    ['127.1', { host: '127.0.0.1' }],
    ['0x7f.1', { host: '127.0.0.1' }],
    ['[::1]', { host: '::1' }],
    ['mail.localhost', { host: '127.0.0.1', servername: 'mail.localhost' }],
    ['LocalHost.', { host: '127.0.0.1', servername: 'LocalHost' }],
  ])('pins %s to %j (TLS verifies a name, never an address form)', async (host, pinned) => {
    await expect(pinSmtpHost({ host, tls: 'starttls' }, LOOPBACK)).resolves.toEqual(pinned);
  });
});

describe('DnsSmtpHosts (create and update)', () => {
  const strict = new DnsSmtpHosts({ allowPrivate: false });
  const open = new DnsSmtpHosts({ allowPrivate: true });

  it.each([
    ['0177.0.0.1', 'address 0177.0.0.1 is not allowed'],
    ['0xa9fea9fe', 'address 0xa9fea9fe is not allowed'],
    ['::ffff:7f00:1', 'address ::ffff:7f00:1 is not allowed'],
    ['a.b.localhost', 'a.b.localhost resolves to an address that is not allowed'],
    ['93.184.216.34', null],
  ])('refuses %s with %j unless SMTP_ALLOW_PRIVATE', async (host, refusal) => {
    await expect(strict.refusal(host)).resolves.toBe(refusal);
    await expect(open.refusal(host)).resolves.toBeNull();
  });

  it.each([
    ['127.1', true],
    ['x.localhost', true],
    ['[::1]', true],
    ['::ffff:127.0.0.9', true],
    ['10.0.0.1', false],
    ['0.0.0.0', false],
  ])('tells whether %s stands for loopback: %s', async (host, loopback) => {
    await expect(open.isLoopback(host)).resolves.toBe(loopback);
  });
});
