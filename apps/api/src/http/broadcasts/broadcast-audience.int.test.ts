import { NodemailerMailer } from '@mailcast/adapters';
import { DeliverBroadcast, QueueRecipients } from '@mailcast/core';
import { startSmtpCapture, type CapturedMessage, type SmtpCapture } from '@mailcast/devkit';
import request from 'supertest';
import { sendingInProcess, startApi, type ApiHarness } from '../../test-support/harness';

/**
 * docs/topics.md, "Audiences": a broadcast's topic and excluded segments, through the API, queued
 * by the real pipeline and received by a real SMTP server; checked again at the hand-off.
 */
describe('broadcast audience: topic and excluded segments', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let token: string;
  let channelId: number;
  let news: number; // custom_data "news", unset does not receive
  let updates: number; // custom_data "updates", unset receives
  let digest: number; // tag "digest"
  let foreignTopic: number;
  let foreignSegment: number;
  const mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false });

  const aTopic = async (channel: number, fields: Record<string, unknown>) => {
    const now = new Date();
    const [row] = await api.database
      .db('topics')
      .insert({ channel_id: channel, created_at: now, updated_at: now, ...fields })
      .returning('id');
    return Number((row as { id: number }).id);
  };

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    api = await startApi({ overrides: [...sendingInProcess('http://links.example.test', mailer)] });
    const channel = await api.fixtures.aChannel({ fromEmail: 'news@example.test' });
    channelId = channel.id;
    token = await api.fixtures.aToken(channel.id);
    await api.fixtures.aCaptureServer(channel.id, smtp.port);
    news = await aTopic(channel.id, { name: 'News', storage: 'custom_data', custom_data_key: 'news' });
    updates = await aTopic(channel.id, { name: 'Updates', storage: 'custom_data', custom_data_key: 'updates', unset_receives: true });
    digest = await aTopic(channel.id, { name: 'Digest', storage: 'tag', tag_name: 'digest' });
    const add = (email: string, customData: Record<string, unknown>, tags: string[] = []) => api.fixtures.aSubscriber(channel.id, email, { customData, tags });
    await add('yes@example.test', { news: true, updates: '1' }, ['digest']);
    await add('no@example.test', { news: false, updates: 0 });
    await add('unset@example.test', {});
    await add('vip@example.test', { news: '1', updates: null }, ['vip']);
    await add('other@example.test', { news: 'maybe' });

    const other = await api.fixtures.aTenant();
    foreignTopic = await aTopic(other.channel.id, { name: 'News', storage: 'custom_data', custom_data_key: 'news' });
    foreignSegment = (await request(api.app).post('/api/v1/segments').set('Authorization', `Bearer ${other.token}`).send({ name: 'theirs' })).body.id;
  });
  afterAll(async () => {
    await mailer.close();
    await api.close();
    await smtp.close();
  });

  const as = () => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`),
    post: (path: string, body: object) => request(api.app).post(path).set('Authorization', `Bearer ${token}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${token}`).send(body),
  });
  const segment = async (rules: object[]) => {
    const res = await as().post('/api/v1/segments', { segment: { name: 's', match: 'all', rules } });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const create = async (fields: object) => {
    const created = await as().post('/api/v1/broadcasts', { broadcast: { subject: 'News', body: 'Hi', ...fields } });
    expect(created.status).toBe(201);
    return created.body.id as number;
  };
  const recipientCount = async (id: number) =>
    Number((await api.database.db('broadcast_recipients').where({ broadcast_id: id }).count<{ n: string }[]>({ n: '*' }))[0]!.n);

  /** Builds the recipients, lets `meanwhile` change things, then sends; the messages delivered. */
  async function send(id: number, meanwhile?: () => Promise<void>): Promise<CapturedMessage[]> {
    const before = smtp.messages.length;
    await api.database.db('broadcasts').where({ id }).update({ status: 'scheduled' });
    await api.container.resolve(QueueRecipients).execute({ broadcastId: id });
    if (meanwhile) await meanwhile();
    expect(await api.container.resolve(DeliverBroadcast).execute({ broadcastId: id })).toBe('finished');
    const sent = Number((await api.database.db('broadcast_recipients').where({ broadcast_id: id, status: 'sent' }).count<{ n: string }[]>({ n: '*' }))[0]!.n);
    return (await smtp.waitFor(before + sent)).slice(before);
  }
  const addresses = (messages: CapturedMessage[]) => messages.flatMap((m) => m.to).sort();

  it('a custom_data topic reaches exactly its yes subscribers', async () => {
    const id = await create({ topic_id: news });
    expect(addresses(await send(id))).toEqual(['vip@example.test', 'yes@example.test']);
    expect((await as().get(`/api/v1/broadcasts/${id}`)).body).toMatchObject({ topic_id: news, excluded_segment_ids: [], total_recipients: 2 });
  });

  it('with unset_receives, the unset subscribers too; a tag topic reaches the tagged', async () => {
    // other@ has no "updates" key: unset, so it receives too; no@ said 0.
    expect(addresses(await send(await create({ topic_id: updates })))).toEqual([
      'other@example.test',
      'unset@example.test',
      'vip@example.test',
      'yes@example.test',
    ]);
    expect(addresses(await send(await create({ topic_id: digest })))).toEqual(['yes@example.test']);
  });

  it('members of an excluded segment get nothing, whole channel or targeted segments', async () => {
    const vip = await segment([{ field: 'tags', operator: 'includes', value: 'vip' }]);
    const everyone = await segment([]);
    expect(addresses(await send(await create({ excluded_segment_ids: [vip] })))).toEqual([
      'no@example.test',
      'other@example.test',
      'unset@example.test',
      'yes@example.test',
    ]);
    expect(addresses(await send(await create({ segment_ids: [everyone], topic_id: news, excluded_segment_ids: [vip] })))).toEqual(['yes@example.test']);
  });

  it('an excluded segment whose rule is unknown (NULL) for a subscriber does not leave that subscriber out', async () => {
    // first_name is null for everyone: "first_name equals Zed" is NULL, not true.
    const zed = await segment([{ field: 'first_name', operator: 'equals', value: 'Zed' }]);
    const id = await create({ topic_id: news, excluded_segment_ids: [zed] });
    expect(addresses(await send(id))).toEqual(['vip@example.test', 'yes@example.test']);
  });

  it('is checked again at the hand-off: a changed topic value or a newly entered excluded segment skips the recipient', async () => {
    const blocked = await segment([{ field: 'tags', operator: 'includes', value: 'blocked' }]);
    const id = await create({ topic_id: updates, excluded_segment_ids: [blocked] });
    const received = await send(id, async () => {
      expect(await recipientCount(id)).toBe(4); // other, unset, vip, yes
      await api.database
        .db('subscribers')
        .where({ channel_id: channelId, email: 'yes@example.test' })
        .update({ custom_data: { news: true, updates: false } });
      await api.database
        .db('subscribers')
        .where({ channel_id: channelId, email: 'unset@example.test' })
        .update({ tags: ['blocked'] });
    });
    expect(addresses(received)).toEqual(['other@example.test', 'vip@example.test']);
    const rows = await api.database
      .db('broadcast_recipients as r')
      .join('subscribers as s', 's.id', 'r.subscriber_id')
      .where({ 'r.broadcast_id': id })
      .orderBy('s.email')
      .select('s.email', 'r.status');
    expect(rows).toEqual([
      { email: 'other@example.test', status: 'sent' },
      { email: 'unset@example.test', status: 'skipped' },
      { email: 'vip@example.test', status: 'sent' },
      { email: 'yes@example.test', status: 'skipped' },
    ]);
    const b = (await as().get(`/api/v1/broadcasts/${id}`)).body;
    expect(b).toMatchObject({ status: 'sent', total_recipients: 4, broadcast_recipients_count: 4 });
    // Skipped, not failed: the broadcast counts none as failed.
    expect((await as().get(`/api/v1/broadcasts/${id}/statistics`)).body.delivery).toMatchObject({ sent: 2, failed: 0 });
    await api.database
      .db('subscribers')
      .where({ channel_id: channelId, email: 'yes@example.test' })
      .update({ custom_data: { news: true, updates: '1' } });
    await api.database.db('subscribers').where({ channel_id: channelId, email: 'unset@example.test' }).update({ tags: [] });
  });

  it('refuses a topic or excluded segment not of this channel, and a segment both targeted and excluded, writing nothing', async () => {
    const mine = await segment([]);
    const before = (await as().get('/api/v1/broadcasts?limit=100')).body.total as number;
    const cases: Array<[object, RegExp]> = [
      [{ topic_id: foreignTopic }, /Topic id/],
      [{ topic_id: 999_999 }, /Topic id/],
      [{ excluded_segment_ids: [foreignSegment] }, /Excluded segment ids/],
      [{ segment_ids: [mine], excluded_segment_ids: [mine] }, /Excluded segment ids include targeted segments: \d+/],
      [{ topic_id: 'news' }, /topic_id/],
      [{ excluded_segment_ids: ['x'] }, /excluded_segment_ids/],
    ];
    for (const [fields, message] of cases) {
      const res = await as().post('/api/v1/broadcasts', { broadcast: { subject: 'S', ...fields } });
      expect([res.status, JSON.stringify(res.body)]).toEqual([422, expect.stringMatching(message)]);
    }
    expect((await as().get('/api/v1/broadcasts?limit=100')).body.total).toBe(before);

    // Update: judged against what is stored, and a refused update changes nothing.
    const id = await create({ segment_ids: [mine] });
    const refused = await as().patch(`/api/v1/broadcasts/${id}`, { broadcast: { excluded_segment_ids: [mine], topic_id: news } });
    expect(refused.status).toBe(422);
    const updated = await as().patch(`/api/v1/broadcasts/${id}`, { broadcast: { topic_id: digest, segment_ids: [], excluded_segment_ids: [mine] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ topic_id: digest, excluded_segment_ids: [mine], segment_ids: [] });
    const listed = (await as().get('/api/v1/broadcasts?limit=100')).body.data.find((b: { id: number }) => b.id === id);
    expect(listed).toMatchObject({ topic_id: digest, excluded_segment_ids: [mine] });
    const cleared = await as().patch(`/api/v1/broadcasts/${id}`, { broadcast: { topic_id: null } });
    expect(cleared.body.topic_id).toBeNull();
    // A segment a scheduled broadcast excludes cannot be deleted.
    await api.database.db('broadcasts').where({ id }).update({ status: 'scheduled' });
    expect((await request(api.app).delete(`/api/v1/segments/${mine}`).set('Authorization', `Bearer ${token}`)).status).toBe(422);
    await api.database.db('broadcasts').where({ id }).update({ status: 'draft' });
  });
});
