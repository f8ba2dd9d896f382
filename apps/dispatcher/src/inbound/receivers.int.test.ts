import { parseEmail } from '@mailcast/devkit';
import { freePort } from '@mailcast/testkit';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import { startSendingHarness, type SendingHarness } from '../test-support/sending-harness';
import {
  MAILGUN_KEY,
  POSTMARK,
  SENDGRID_PUBLIC_KEY,
  SES_TOPIC,
  mailgunBody,
  postmarkAuth,
  sendgridRequest,
  sesNotification,
  snsMessage,
  snsSigner,
} from '../test-support/inbound-signing';

/** For a DER ECDSA P-256 signature (r, s), the DER of (r, n − s): valid for the same content. */
function otherEcdsaSignature(base64: string): string {
  const der = Buffer.from(base64, 'base64');
  const rLength = der[3]!;
  const r = der.subarray(4, 4 + rLength);
  const s = BigInt(`0x${der.subarray(6 + rLength).toString('hex')}`);
  const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
  let hex = (n - s).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let other = Buffer.from(hex, 'hex');
  if (other[0]! & 0x80) other = Buffer.concat([Buffer.from([0]), other]);
  const body = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, other.length]), other]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString('base64');
}

const NAMES = ['ann', 'bob', 'cid', 'dee', 'eve', 'fay', 'gus'];

describe('bounce and complaint receivers (HTTP, real PostgreSQL, real SMTP)', () => {
  let h: SendingHarness;
  let sns: http.Server;
  const snsRequests: string[] = [];
  const signer = snsSigner();
  const other = snsSigner();
  const messageIds = new Map<string, string>();
  let firstBroadcast: number;

  beforeAll(async () => {
    // Stands in for SNS: serves the signing certificate and answers subscription confirmations.
    const snsPort = await freePort();
    sns = http.createServer((req, res) => {
      snsRequests.push(req.url ?? '');
      if (req.url?.endsWith('.pem')) res.end(signer.certificatePem);
      else res.end('<ConfirmSubscriptionResponse/>');
    });
    await new Promise<void>((resolve) => sns.listen(snsPort, '127.0.0.1', resolve));
    h = await startSendingHarness({
      env: {
        INBOUND_MAILGUN_SIGNING_KEY: MAILGUN_KEY,
        INBOUND_SENDGRID_PUBLIC_KEY: SENDGRID_PUBLIC_KEY,
        INBOUND_POSTMARK_USERNAME: POSTMARK.username,
        INBOUND_POSTMARK_PASSWORD: POSTMARK.password,
        INBOUND_SES_TOPIC_ARNS: SES_TOPIC,
        INBOUND_SES_SNS_ORIGIN: `http://127.0.0.1:${snsPort}`,
      },
    });
    for (const name of NAMES) {
      expect((await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: `${name}@example.com` } })).status).toBe(201);
    }
    const first = await h.broadcast({ subject: 'One', body: 'First' });
    expect(first.status).toBe('sent');
    firstBroadcast = first.id;
    for (const message of h.smtp.messages) messageIds.set(message.to[0]!, (await parseEmail(message.raw)).messageId!);
    expect(messageIds.size).toBe(NAMES.length);
  }, 90_000);
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => sns.close(resolve));
  });

  const post = async (path: string, body: string | object, headers: Record<string, string> = {}) => {
    const res = await fetch(`${h.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const id = (name: string) => messageIds.get(`${name}@example.com`)!;

  it('Mailgun: a signed failure is a hard bounce; forged, stale and replayed requests are refused', async () => {
    const event = {
      event: 'failed',
      severity: 'permanent',
      recipient: 'bob@example.com',
      reason: 'bounce',
      'delivery-status': { code: 550, message: '5.1.1 No such user', description: 'No such user' },
      // Mailgun gives the Message-ID header without its angle brackets.
      message: { headers: { 'message-id': id('bob').slice(1, -1) } },
    };
    expect(await post('/inbound/mailgun', mailgunBody(event, { key: 'key-wrong' }))).toEqual({ status: 401, body: { error: 'Signature does not verify' } });
    const stale = mailgunBody(event, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect((await post('/inbound/mailgun', stale)).status).toBe(401);
    const signed = mailgunBody(event);
    expect(await post('/inbound/mailgun', signed)).toEqual({ status: 200, body: { recorded: 1, duplicate: 0, unknown: 0 } });
    expect(await post('/inbound/mailgun', signed)).toEqual({ status: 401, body: { error: 'Notification was already received' } });
    // The same bounce in a fresh request counts once.
    expect((await post('/inbound/mailgun', mailgunBody(event))).body).toEqual({ recorded: 0, duplicate: 1, unknown: 0 });
    // Tampering with the signed fields breaks the signature; a body that is not JSON is a 400.
    const tampered = { ...signed, signature: { ...signed.signature, timestamp: String(Number(signed.signature.timestamp) + 1) } };
    expect((await post('/inbound/mailgun', tampered)).status).toBe(401);
    expect((await post('/inbound/mailgun', '{not json')).status).toBe(400);
    expect((await post('/inbound/mailgun', 'x'.repeat(2 * 1024 * 1024))).status).toBe(413);
  });

  it('SendGrid: a signed spam report is a complaint; a changed body, a stale or replayed request is refused', async () => {
    const events = [
      { email: 'cid@example.com', event: 'spamreport', 'smtp-id': id('cid'), sg_event_id: 'e1', timestamp: Math.floor(Date.now() / 1000) },
      { email: 'cid@example.com', event: 'delivered', 'smtp-id': id('cid'), sg_event_id: 'e0' },
    ];
    const signed = sendgridRequest(events);
    expect((await post('/inbound/sendgrid', `${signed.body} `, signed.headers)).status).toBe(401);
    const wrongKey = sendgridRequest(events, { privateKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey });
    expect((await post('/inbound/sendgrid', wrongKey.body, wrongKey.headers)).status).toBe(401);
    const stale = sendgridRequest(events, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect((await post('/inbound/sendgrid', stale.body, stale.headers)).status).toBe(401);
    expect((await post('/inbound/sendgrid', signed.body)).status).toBe(400);
    expect(await post('/inbound/sendgrid', signed.body, signed.headers)).toEqual({ status: 200, body: { recorded: 1, duplicate: 0, unknown: 0 } });
    expect((await post('/inbound/sendgrid', signed.body, signed.headers)).status).toBe(401);
    // The other valid signature of the same content (s → n − s) is a replay too.
    const malleated = {
      ...signed.headers,
      'x-twilio-email-event-webhook-signature': otherEcdsaSignature(signed.headers['x-twilio-email-event-webhook-signature']),
    };
    expect(await post('/inbound/sendgrid', signed.body, malleated)).toEqual({ status: 401, body: { error: 'Notification was already received' } });
  });

  it('Postmark: a bounce with the right credentials is recorded; wrong credentials and replays are refused', async () => {
    const bounce = {
      RecordType: 'Bounce',
      ID: 4323372036,
      Type: 'HardBounce',
      TypeCode: 1,
      MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
      Metadata: { 'mailcast-message-id': id('dee') },
      Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
      Email: 'dee@example.com',
      BouncedAt: new Date().toISOString(),
    };
    expect((await post('/inbound/postmark', bounce, { authorization: postmarkAuth(POSTMARK.username, 'wrong') })).status).toBe(401);
    expect((await post('/inbound/postmark', bounce)).status).toBe(401);
    expect(await post('/inbound/postmark', bounce, { authorization: postmarkAuth() })).toEqual({
      status: 200,
      body: { recorded: 1, duplicate: 0, unknown: 0 },
    });
    expect((await post('/inbound/postmark', bounce, { authorization: postmarkAuth() })).status).toBe(401);
    // An address other than the recipient's matches nothing.
    const mismatched = { ...bounce, ID: 2, Email: 'ann@example.com' };
    expect((await post('/inbound/postmark', mismatched, { authorization: postmarkAuth() })).body).toEqual({ recorded: 0, duplicate: 0, unknown: 1 });
  });

  it('SES through SNS: confirms the subscription, records a complaint, refuses forged, foreign and replayed messages', async () => {
    const subscribeUrl = `https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${SES_TOPIC}&Token=abc`;
    const confirmation = snsMessage(signer.privateKeyPem, {
      Type: 'SubscriptionConfirmation',
      Message: 'You have chosen to subscribe',
      SubscribeURL: subscribeUrl,
      Token: 'abc',
    });
    expect((await post('/inbound/ses', confirmation, { 'content-type': 'text/plain; charset=UTF-8' })).status).toBe(200);
    expect(snsRequests.filter((u) => u.startsWith('/?Action=ConfirmSubscription'))).toHaveLength(1);

    const complaint = snsMessage(
      signer.privateKeyPem,
      { Type: 'Notification', Message: sesNotification('Complaint', 'eve@example.com', id('eve')) },
      { version: '1' },
    );
    const forged = snsMessage(other.privateKeyPem, { Type: 'Notification', Message: sesNotification('Complaint', 'fay@example.com', id('fay')) });
    expect(await post('/inbound/ses', forged)).toEqual({ status: 401, body: { error: 'Signature does not verify' } });
    const foreign = snsMessage(
      signer.privateKeyPem,
      { Type: 'Notification', Message: sesNotification('Bounce', 'fay@example.com', id('fay')) },
      { topic: 'arn:aws:sns:us-east-1:999999999999:other' },
    );
    expect((await post('/inbound/ses', foreign)).status).toBe(401);
    const stale = snsMessage(
      signer.privateKeyPem,
      { Type: 'Notification', Message: sesNotification('Bounce', 'fay@example.com', id('fay')) },
      { timestamp: new Date(Date.now() - 2 * 3600_000) },
    );
    expect((await post('/inbound/ses', stale)).status).toBe(401);
    const elsewhere = { ...complaint, SigningCertURL: 'https://example.com/SimpleNotificationService.pem' };
    expect((await post('/inbound/ses', elsewhere)).status).toBe(401);
    expect(await post('/inbound/ses', complaint)).toEqual({ status: 200, body: { recorded: 1, duplicate: 0, unknown: 0 } });
    expect((await post('/inbound/ses', complaint)).status).toBe(401);
    expect(await post('/inbound/ses', { Type: 'Other' })).toEqual({ status: 400, body: { error: 'Unknown SNS message type' } });
    // A confirmation whose SubscribeURL is not an SNS address is never visited.
    const elsewhereConfirm = snsMessage(signer.privateKeyPem, {
      Type: 'SubscriptionConfirmation',
      Message: 'm',
      SubscribeURL: 'https://evil.example/confirm',
      Token: 't',
    });
    expect((await post('/inbound/ses', elsewhereConfirm)).status).toBe(400);
    expect(snsRequests.filter((u) => u.includes('confirm'))).toEqual([]);
    // The certificate was downloaded once, then served from the cache.
    expect(snsRequests.filter((u) => u.endsWith('.pem'))).toHaveLength(1);
  });

  it('counts them in the statistics, suppresses the addresses, and the next broadcast skips them', async () => {
    const stats = await h.request('GET', `/api/v1/broadcasts/${firstBroadcast}/statistics`);
    expect(stats.body.issues.bounces.count).toBe(2);
    expect(stats.body.issues.complaints.count).toBe(2);
    const check = async (name: string) => (await h.request('GET', `/api/v1/suppressions/check.json?email=${name}@example.com`)).body.reason;
    expect([await check('bob'), await check('cid'), await check('dee'), await check('eve'), await check('fay')]).toEqual([
      'bounce',
      'complaint',
      'bounce',
      'complaint',
      null,
    ]);
    // Bounced: deactivated; complained: unsubscribed.
    const subscribers = await h.api.database.db('subscribers').orderBy('email').select('email', 'is_active', 'unsubscribed_at');
    expect(subscribers.map((s) => [s.email.split('@')[0], s.is_active, s.unsubscribed_at !== null])).toEqual([
      ['ann', true, false],
      ['bob', false, false],
      ['cid', false, true],
      ['dee', false, false],
      ['eve', false, true],
      ['fay', true, false],
      ['gus', true, false],
    ]);
    const events = await h.api.database
      .db('events')
      .whereIn('type', ['email.bounced', 'subscriber.bounced', 'email.complained', 'subscriber.complained'])
      .select('type', 'data');
    expect(events.map((e) => `${e.type} ${e.data.email}`).sort()).toEqual([
      'email.bounced bob@example.com',
      'email.bounced dee@example.com',
      'email.complained cid@example.com',
      'email.complained eve@example.com',
      'subscriber.bounced bob@example.com',
      'subscriber.bounced dee@example.com',
      'subscriber.complained cid@example.com',
      'subscriber.complained eve@example.com',
    ]);

    const before = h.smtp.messages.length;
    const second = await h.broadcast({ subject: 'Two', body: 'Second' });
    expect(second.status).toBe('sent');
    expect(
      h.smtp.messages
        .slice(before)
        .map((m) => m.to[0])
        .sort(),
    ).toEqual(['ann@example.com', 'fay@example.com', 'gus@example.com']);
  }, 60_000);

  // Last: it spends this address's public allowance for the minute.
  it('is rate limited per client address like the other public routes', async () => {
    let status = 0;
    // At most two windows' worth: a window that turns over mid-way starts the count again.
    for (let i = 0; i < 650 && status !== 429; i++) status = (await post('/inbound/mailgun', '{}')).status;
    expect(status).toBe(429);
  }, 60_000);
});
