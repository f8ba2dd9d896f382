import { NodemailerMailer } from '@mailcast/adapters';
import { DeliverBroadcast } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type CapturedMessage, type SmtpCapture } from '@mailcast/devkit';
import request from 'supertest';
import { sendingInProcess, startApi, type ApiHarness } from '../../test-support/harness';

const PUBLIC_URL = 'http://links.example.test';

/**
 * docs/segments.md: broadcasts to segments, through the API, queued by the real pipeline and
 * received by a real SMTP server; an engagement segment built from clicks made through the
 * links of the received emails.
 */
describe('broadcasts to segments', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let token: string;
  const mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false });

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    api = await startApi({
      overrides: [...sendingInProcess(PUBLIC_URL, mailer)],
    });
    const channel = await api.fixtures.aChannel({ fromEmail: 'news@example.test' });
    token = await api.fixtures.aToken(channel.id);
    await api.fixtures.aCaptureServer(channel.id, smtp.port);
    const add = (email: string, tags: string[], overrides = {}) => api.fixtures.aSubscriber(channel.id, email, { tags, ...overrides });
    await add('vip@example.test', ['vip']);
    await add('both@example.test', ['vip', 'beta']);
    await add('beta@example.test', ['beta']);
    await add('none@example.test', []);
    await add('pending@example.test', ['beta'], { requiresConfirmation: true });
    const inactive = await add('inactive@example.test', ['vip']);
    await api.database.db('subscribers').where({ id: inactive.id }).update({ is_active: false });
    const other = await api.fixtures.aChannel();
    await api.fixtures.aSubscriber(other.id, 'stranger@example.test', { tags: ['vip', 'beta'] });
  });
  afterAll(async () => {
    await mailer.close();
    await api.close();
    await smtp.close();
  });

  const post = (path: string, body: object) => request(api.app).post(path).set('Authorization', `Bearer ${token}`).send(body);
  const segment = async (rules: object[], match = 'all') => {
    const res = await post('/api/v1/segments', { segment: { name: 's', match, rules } });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const memberEmails = async (id: number) => {
    const res = await request(api.app).get(`/api/v1/segments/${id}.json`).set('Authorization', `Bearer ${token}`);
    return (res.body.subscribers as Array<{ email: string }>).map((s) => s.email).sort();
  };

  /** Creates and sends a broadcast through the pipeline; the messages it delivered. */
  async function send(segmentIds: number[], html = '<p>Hi</p>'): Promise<{ id: number; received: CapturedMessage[] }> {
    const before = smtp.messages.length;
    const created = await post('/api/v1/broadcasts', {
      broadcast: { subject: 'News', body: 'Hi', html_body: html, segment_ids: segmentIds, track_clicks: true },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    await api.database.db('broadcasts').where({ id }).update({ status: 'scheduled' });
    expect(await api.container.resolve(DeliverBroadcast).execute({ broadcastId: id })).toBe('finished');
    const recipients = Number((await api.database.db('broadcast_recipients').where({ broadcast_id: id }).count<{ n: string }[]>({ n: '*' }))[0]!.n);
    const all = await smtp.waitFor(before + recipients);
    return { id, received: all.slice(before) };
  }

  const addresses = (messages: CapturedMessage[]) => messages.flatMap((m) => m.to).sort();

  it('reaches each member of two overlapping segments once, and no one else', async () => {
    const vip = await segment([{ field: 'tags', operator: 'includes', value: 'vip' }]);
    const beta = await segment([{ field: 'tags', operator: 'includes', value: 'beta' }]);
    const { received } = await send([vip, beta]);
    // both@ is in both segments: one email. inactive@ and unconfirmed pending@ are left out.
    expect(addresses(received)).toEqual(['beta@example.test', 'both@example.test', 'vip@example.test']);
  });

  it('a segment matching nobody sends nothing, never the whole channel', async () => {
    const nobody = await segment([{ field: 'email', operator: 'equals', value: 'absent@example.test' }]);
    const { id, received } = await send([nobody]);
    expect(received).toEqual([]);
    expect((await api.database.db('broadcasts').where({ id }).first()).total_recipients).toBe(0);
  });

  it('"clicked broadcast N" holds exactly the recipients who clicked through the received email', async () => {
    const everyone = await segment([], 'all');
    const { id, received } = await send([everyone], '<p>Hi</p><a href="https://example.com/offer">Offer</a>');
    expect(addresses(received)).toEqual(['beta@example.test', 'both@example.test', 'none@example.test', 'vip@example.test']);

    const clickers = ['both@example.test', 'none@example.test'];
    for (const message of received.filter((m) => clickers.includes(m.to[0]!))) {
      const html = (await parseEmail(message.raw)).html!;
      const tracked = /href="(http:\/\/links\.example\.test\/t\/c\/[^"]+)"/.exec(html)![1]!;
      const res = await request(api.app).get(tracked.slice(PUBLIC_URL.length));
      expect([res.status, res.headers.location]).toEqual([302, 'https://example.com/offer']);
    }
    const clicked = await segment([{ field: 'clicked_broadcast', operator: 'equals', value: id }]);
    expect(await memberEmails(clicked)).toEqual(clickers);
    const notClicked = await segment([{ field: 'clicked_broadcast', operator: 'not_equals', value: id }]);
    expect(await memberEmails(notClicked)).toEqual(['beta@example.test', 'inactive@example.test', 'pending@example.test', 'vip@example.test']);
    const recently = await segment([{ field: 'clicked_broadcast', operator: 'equals', value: 'any', within_days: 1 }]);
    expect(await memberEmails(recently)).toEqual(clickers);
    // Nobody opened (no pixel was fetched).
    const opened = await segment([{ field: 'opened_broadcast', operator: 'equals', value: id }]);
    expect(await memberEmails(opened)).toEqual([]);

    // Sending to the engagement segment reaches the clickers only.
    const followUp = await send([clicked]);
    expect(addresses(followUp.received)).toEqual(clickers);
  });
});
