import { loadConfig, type DsnServer } from '@mailcast/adapters';
import { memoryLogger } from '@mailcast/testkit';
import nodemailer from 'nodemailer';
import { startSendingHarness, type SendingHarness } from '../test-support/sending-harness';
import { startDsnListener } from './dsn-listener';

const VERP = /^bounces\+(\d+)-([0-9a-f]{26})@bounces\.example\.com$/;

/** An RFC 3464 report as a receiving MTA sends it back to the envelope sender. */
function dsn(to: string, finalRecipient: string, status: string, diagnostic: string): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.remote.example>',
    `To: ${to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B"',
    '',
    '--B',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'Your message could not be delivered.',
    '',
    '--B',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.remote.example',
    'Arrival-Date: Wed, 25 Nov 2026 22:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${finalRecipient}`,
    'Action: failed',
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    '',
    '--B',
    'Content-Type: text/rfc822-headers',
    '',
    `To: ${finalRecipient}`,
    'Subject: One',
    '',
    '--B--',
    '',
  ].join('\r\n');
}

describe('the inbound SMTP listener matches DSNs to their recipients through VERP', () => {
  let h: SendingHarness;
  let listener: DsnServer;
  const logger = memoryLogger();

  beforeAll(async () => {
    h = await startSendingHarness();
    const config = loadConfig({ DATABASE_URL: h.api.database.url, INBOUND_SMTP_PORT: '0', INBOUND_SMTP_HOST: '127.0.0.1', SMTP_ALLOW_PRIVATE: 'true' });
    listener = (await startDsnListener(h.dispatcher, config, logger.logger))!;
    for (const name of ['ann', 'bob', 'cid', 'dee']) {
      expect((await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: `${name}@example.com` } })).status).toBe(201);
    }
    const invalid = await h.request('PATCH', `/api/v1/email_servers/${h.emailServerId}`, { email_server: { bounce_domain: 'not a domain' } });
    expect(invalid).toEqual({ status: 422, body: { errors: { bounce_domain: ['must be a domain name'] } } });
    const patched = await h.request('PATCH', `/api/v1/email_servers/${h.emailServerId}`, { email_server: { bounce_domain: 'bounces.example.com' } });
    expect(patched.status).toBe(200);
    expect(patched.body.bounce_domain).toBe('bounces.example.com');
  }, 90_000);
  afterAll(async () => {
    await listener.close();
    await h.close();
  });

  const deliverDsn = async (rcpt: string, raw: string) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: listener.port, secure: false, ignoreTLS: true });
    try {
      return await transport.sendMail({ envelope: { from: '', to: [rcpt] }, raw });
    } finally {
      transport.close();
    }
  };
  /** Sends a broadcast; answers each recipient's VERP envelope sender, by address. */
  const broadcast = async (subject: string) => {
    const before = h.smtp.messages.length;
    const sent = await h.broadcast({ subject, body: 'Hello' });
    const returnPaths = new Map(h.smtp.messages.slice(before).map((m) => [m.to[0]!, m.from]));
    return { ...sent, returnPaths };
  };
  const suppression = async (name: string) => (await h.request('GET', `/api/v1/suppressions/check.json?email=${name}@example.com`)).body.reason;
  const statistics = async (id: number) => (await h.request('GET', `/api/v1/broadcasts/${id}/statistics`)).body.issues.bounces.count;

  it('sends with a VERP return path per recipient, and records a hard bounce DSN sent to it', async () => {
    const first = await broadcast('One');
    expect([...first.returnPaths.keys()].sort()).toEqual(['ann@example.com', 'bob@example.com', 'cid@example.com', 'dee@example.com']);
    for (const from of first.returnPaths.values()) expect(from).toMatch(VERP);
    expect(new Set(first.returnPaths.values()).size).toBe(4);

    const bob = first.returnPaths.get('bob@example.com')!;
    await deliverDsn(bob, dsn(bob, 'bob@example.com', '5.1.1', '550 5.1.1 User unknown'));
    expect(await suppression('bob')).toBe('bounce');
    // The same DSN again counts once.
    await deliverDsn(bob, dsn(bob, 'bob@example.com', '5.1.1', '550 5.1.1 User unknown'));
    expect(await statistics(first.id)).toBe(1);

    // A forged token (cid's recipient id with bob's MAC) is accepted by SMTP but matches nothing.
    const cid = first.returnPaths.get('cid@example.com')!;
    const forged = cid.replace(/-[0-9a-f]{26}@/, `-${VERP.exec(bob)![2]}@`);
    await deliverDsn(forged, dsn(forged, 'cid@example.com', '5.1.1', '550 User unknown'));
    expect(await suppression('cid')).toBeNull();
    // Mail to anything but a VERP address is refused.
    await expect(deliverDsn('postmaster@bounces.example.com', dsn('x', 'cid@example.com', '5.1.1', 'x'))).rejects.toThrow(/550/);

    // The webhook receivers are off here: none of their secrets is configured.
    for (const provider of ['ses', 'postmark', 'mailgun', 'sendgrid']) {
      expect((await fetch(`${h.baseUrl}/inbound/${provider}`, { method: 'POST', body: '{}' })).status).toBe(404);
    }

    const next = await broadcast('Two');
    expect([...next.returnPaths.keys()].sort()).toEqual(['ann@example.com', 'cid@example.com', 'dee@example.com']);
  }, 60_000);

  it('counts soft bounces and suppresses the address at the third within 30 days', async () => {
    for (const [n, subject] of ['Three', 'Four', 'Five'].entries()) {
      const sent = await broadcast(subject);
      expect(sent.returnPaths.has('dee@example.com')).toBe(true);
      const dee = sent.returnPaths.get('dee@example.com')!;
      await deliverDsn(dee, dsn(dee, 'dee@example.com', '4.2.2', '452 4.2.2 Mailbox full'));
      expect(await statistics(sent.id)).toBe(1);
      expect(await suppression('dee')).toBe(n < 2 ? null : 'bounce');
    }
    const after = await broadcast('Six');
    expect([...after.returnPaths.keys()].sort()).toEqual(['ann@example.com', 'cid@example.com']);
  }, 90_000);
});
