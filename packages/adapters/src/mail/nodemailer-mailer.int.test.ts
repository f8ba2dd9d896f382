import { MessageWithdrawn, type EmailServer, type Mailer, type OutgoingEmail } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { anEmailServer, eventually, freePort } from '@mailcast/testkit';
import { DEFAULT_CONNECTIONS_PER_SERVER, NodemailerMailer } from './nodemailer-mailer';
import { ThreadedMailer } from './threaded-mailer';

/** The servers here listen on loopback (SMTP_ALLOW_PRIVATE). */
const LOOPBACK = { allowPrivate: true, allowPlaintext: false };

/** Both mailers the dispatcher may use: in-process, and on SMTP threads (the same mailer inside). */
const MAILERS: Array<[string, (connectionsPerServer: number) => Mailer]> = [
  ['NodemailerMailer', (connections) => new NodemailerMailer(LOOPBACK, connections)],
  ['ThreadedMailer (2 threads)', (connections) => new ThreadedMailer({ threads: 2, connectionsPerServer: connections, addresses: LOOPBACK })],
];

describe.each(MAILERS)('%s against a real SMTP server', (_name, makeMailer) => {
  let smtp: SmtpCapture;
  let mailer: Mailer;
  let server: EmailServer;
  /** Recipients the server was given (RCPT TO), accepted or not. */
  const envelopes: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtpCapture({
      verdictFor: (recipient) => {
        envelopes.push(recipient);
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

  it('withdraws the messages still waiting for a connection: only those started reach the server', async () => {
    const held: Array<() => void> = [];
    const slow = await startSmtpCapture({ onMessage: () => new Promise<void>((resolve) => held.push(resolve)) });
    const limited = makeMailer(2);
    try {
      const target = { ...server, id: 3, port: slow.port };
      const withdrawal = new AbortController();
      const answered: unknown[] = [];
      const sends = Array.from({ length: 10 }, (_, i) =>
        limited
          .send(target, email({ to: `w${i}@example.com` }), withdrawal.signal)
          .catch((error: unknown) => error)
          .then((answer) => answered.push(answer)),
      );
      // Both connections hold a message whose answer waits (waitFor would wait for the answer).
      const arrived = (n: number) => eventually(async () => (slow.messages.length >= n ? true : undefined), 10_000, 10);
      await arrived(2);
      withdrawal.abort();
      // The server answers once the others are withdrawn: a freed slot would start the next one.
      await eventually(async () => (answered.length >= 8 ? true : undefined), 10_000, 10);
      expect(answered.every((o) => o instanceof MessageWithdrawn)).toBe(true);
      for (const answer of held.splice(0)) answer();
      await Promise.all(sends);
      expect(answered.slice(8)).toEqual([expect.objectContaining({ kind: 'accepted' }), expect.objectContaining({ kind: 'accepted' })]);
      expect(slow.messages).toHaveLength(2);
      // The slots are free again: a later message goes out.
      const later = limited.send(target, email({ to: 'later@example.com' }));
      await arrived(3);
      for (const answer of held.splice(0)) answer();
      await expect(later).resolves.toMatchObject({ kind: 'accepted' });
    } finally {
      for (const answer of held.splice(0)) answer();
      await limited.close();
      await slow.close();
    }
  });

  it('holds the content until the clearance: the server takes the message only after it resolves', async () => {
    const count = smtp.messages.length;
    let clear!: () => void;
    let asked = false;
    const cleared = new Promise<void>((resolve) => (clear = resolve));
    const sending = mailer.send(server, email({ to: 'cleared@example.com' }), undefined, () => {
      asked = true;
      return cleared;
    });
    // Asked once the message holds a connection; its envelope goes, and until the clearance
    // resolves the server has no message.
    await eventually(async () => (asked && envelopes.includes('cleared@example.com') ? true : undefined), 10_000, 10);
    expect(smtp.messages.length).toBe(count);
    clear();
    await expect(sending).resolves.toMatchObject({ kind: 'accepted' });
    expect(smtp.messages.at(-1)!.to).toEqual(['cleared@example.com']);
  });

  it('breaks the transaction off when the clearance is refused: nothing is sent, send rejects with its reason, and the pool goes on', async () => {
    const count = smtp.messages.length;
    const reason = new MessageWithdrawn();
    await expect(mailer.send(server, email({ to: 'refused@example.com' }), undefined, () => Promise.reject(reason))).rejects.toBe(reason);
    await expect(mailer.send(server, email({ to: 'after@example.com' }))).resolves.toMatchObject({ kind: 'accepted' });
    await smtp.waitFor(count + 1);
    expect(smtp.messages.slice(count).map((m) => m.to)).toEqual([['after@example.com']]);
  });
});
