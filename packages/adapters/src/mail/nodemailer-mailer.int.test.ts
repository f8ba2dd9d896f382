import type { EmailServer, Mailer, OutgoingEmail } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { anEmailServer, freePort } from '@mailcast/testkit';
import { DEFAULT_CONNECTIONS_PER_SERVER, NodemailerMailer } from './nodemailer-mailer';
import { ThreadedMailer } from './threaded-mailer';

/** Both mailers the dispatcher may use: in-process, and on SMTP threads (the same mailer inside). */
const MAILERS: Array<[string, (connectionsPerServer: number) => Mailer]> = [
  ['NodemailerMailer', (connections) => new NodemailerMailer(connections)],
  ['ThreadedMailer (2 threads)', (connections) => new ThreadedMailer({ threads: 2, connectionsPerServer: connections })],
];

describe.each(MAILERS)('%s against a real SMTP server', (_name, makeMailer) => {
  let smtp: SmtpCapture;
  let mailer: Mailer;
  let server: EmailServer;

  beforeAll(async () => {
    smtp = await startSmtpCapture({
      verdictFor: (recipient) => {
        if (recipient.startsWith('gone@')) return { code: 550, message: '5.1.1 No such user' };
        if (recipient.startsWith('busy@')) return { code: 451, message: '4.2.0 Try again later' };
        return undefined;
      },
    });
    mailer = makeMailer(DEFAULT_CONNECTIONS_PER_SERVER);
    server = anEmailServer({ port: smtp.port, username: 'user', password: 'secret' });
  });
  afterAll(async () => {
    await mailer.close();
    await smtp.close();
  });

  const email = (overrides: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
    messageId: `<${Math.random().toString(36).slice(2)}@mailcast.test>`,
    from: { email: 'news@example.com', name: 'Zoë’s News' },
    to: 'reader@example.com',
    replyTo: 'editor@example.com',
    subject: 'Grüße, {{ not rendered here }}',
    text: 'Plain body',
    html: '<p>HTML body</p>',
    headers: { 'List-Unsubscribe': '<https://mail.example.com/u/abc>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'X-Campaign': '42' },
    ...overrides,
  });

  it('delivers the message as given: Message-ID, addresses, both parts, custom headers', async () => {
    const message = email();
    const outcome = await mailer.send(server, message);
    expect(outcome).toEqual({ kind: 'accepted', response: expect.stringMatching(/^250/) });
    const [captured] = await smtp.waitFor(1);
    expect(captured!.to).toEqual(['reader@example.com']);
    expect(captured!.from).toBe('news@example.com');
    const parsed = await parseEmail(captured!.raw);
    expect(parsed).toMatchObject({
      messageId: message.messageId,
      subject: 'Grüße, {{ not rendered here }}',
      from: { address: 'news@example.com', name: 'Zoë’s News' },
      replyTo: 'editor@example.com',
    });
    // MIME ends each part with a line break; the content is what was sent.
    expect(parsed.text?.trimEnd()).toBe('Plain body');
    expect(parsed.html?.trimEnd()).toBe('<p>HTML body</p>');
    expect(parsed.headers['list-unsubscribe']).toBe('<https://mail.example.com/u/abc>');
    expect(parsed.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(parsed.headers['x-campaign']).toBe('42');
  });

  it('reports a 5xx rejection as permanent (a hard bounce)', async () => {
    await expect(mailer.send(server, email({ to: 'gone@example.com' }))).resolves.toEqual({
      kind: 'rejected',
      permanent: true,
      code: 550,
      message: expect.stringContaining('No such user'),
    });
  });

  it('reports a 4xx rejection as temporary (delayed, retried later)', async () => {
    await expect(mailer.send(server, email({ to: 'busy@example.com' }))).resolves.toEqual({
      kind: 'rejected',
      permanent: false,
      code: 451,
      message: expect.stringContaining('Try again later'),
    });
  });

  it('reports an unreachable server as temporary, without an SMTP code', async () => {
    const nowhere = { ...server, id: 2, port: await freePort() };
    const outcome = await mailer.send(nowhere, email());
    expect(outcome).toMatchObject({ kind: 'rejected', permanent: false, code: null });
  });

  it('reuses pooled connections across messages', async () => {
    const before = smtp.connections();
    const count = smtp.messages.length;
    await Promise.all(Array.from({ length: 30 }, () => mailer.send(server, email())));
    await smtp.waitFor(count + 30);
    expect(smtp.connections() - before).toBeLessThanOrEqual(DEFAULT_CONNECTIONS_PER_SERVER);
  });

  it('opens the configured connections per server, and no more', async () => {
    const limited = makeMailer(4);
    try {
      const before = smtp.connections();
      const count = smtp.messages.length;
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => limited.send(server, email())));
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
      await smtp.waitFor(count + 30);
      expect(smtp.connections() - before).toBe(4);
    } finally {
      await limited.close();
    }
  });
});
