import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** docs/topics.md, "The API": topics through HTTP, and their values in subscriber answers. */
describe('topics API', () => {
  const api = useApi();
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });

  const as = (t = token) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${t}`),
    post: (path: string, body: object = {}) => request(api.app).post(path).set('Authorization', `Bearer ${t}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${t}`).send(body),
    delete: (path: string, body: object = {}) => request(api.app).delete(path).set('Authorization', `Bearer ${t}`).send(body),
  });
  const newTopic = async (body: object) => {
    const created = await as().post('/api/v1/topics', body);
    expect([created.status, created.body.error]).toEqual([201, undefined]);
    return created.body as { id: number; position: number };
  };

  it('creates (nested or flat), infers the storage, shows with counts, lists, updates and deletes', async () => {
    const created = await as().post('/api/v1/topics', { topic: { name: 'Product news', custom_data_key: 'product_news', description: 'Launches' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Product news',
      description: 'Launches',
      storage: 'custom_data',
      custom_data_key: 'product_news',
      tag_name: null,
      unset_receives: false,
      visible_on_preference_page: true,
      position: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expectResponseMatchesDocument(created);
    const tag = await as().post('/api/v1/topics', { name: 'Weekly', tag_name: 'weekly', visible_on_preference_page: false, extra: 1 });
    expect([tag.status, tag.body.storage, tag.body.position, tag.body.warnings]).toEqual([201, 'tag', 1, [expect.objectContaining({ param: 'extra' })]]);

    const shown = await as().get(`/api/v1/topics/${created.body.id}.json`);
    expect([shown.status, shown.body.counts]).toEqual([200, { yes: 0, no: 0, unset: 0, receiving: 0 }]);
    expectResponseMatchesDocument(shown);
    const list = await as().get('/api/v1/topics.json');
    expect([list.status, list.body.total, list.body.data.map((t: { name: string }) => t.name)]).toEqual([200, 2, ['Product news', 'Weekly']]);
    expectResponseMatchesDocument(list);
    expect((await as().get('/api/v1/topics.json?limit=1&offset=1')).body.data.map((t: { name: string }) => t.name)).toEqual(['Weekly']);

    const updated = await as().patch(`/api/v1/topics/${created.body.id}`, { topic: { unset_receives: true, position: 5, description: null } });
    expect([updated.status, updated.body.unset_receives, updated.body.position, updated.body.description, updated.body.custom_data_key]).toEqual([
      200,
      true,
      5,
      null,
      'product_news',
    ]);
    expectResponseMatchesDocument(updated);
    expect((await as().get('/api/v1/topics.json')).body.data.map((t: { name: string }) => t.name)).toEqual(['Weekly', 'Product news']);

    const deleted = await as().delete(`/api/v1/topics/${tag.body.id}`);
    expect([deleted.status, deleted.body]).toEqual([200, { message: 'Topic deleted' }]);
    expect((await as().get(`/api/v1/topics/${tag.body.id}.json`)).status).toBe(404);
    await as().delete(`/api/v1/topics/${created.body.id}`);
  });

  it.each<[string, object, RegExp]>([
    ['no key nor tag', { name: 'A' }, /custom_data_key or tag_name is required/],
    ['both', { name: 'A', custom_data_key: 'a', tag_name: 'a' }, /cannot both/],
    ['no name', { custom_data_key: 'a' }, /^name can't be blank/],
    ['a name over 100', { name: 'x'.repeat(101), custom_data_key: 'a' }, /^name/],
    ['a nested key', { name: 'A', custom_data_key: 'a.b' }, /^custom_data_key must be a top-level key/],
    ['a key starting with a digit', { name: 'A', custom_data_key: '1a' }, /^custom_data_key/],
    ['a storage that disagrees', { name: 'A', custom_data_key: 'a', storage: 'tag' }, /^storage must be custom_data/],
    ['an unknown storage', { name: 'A', custom_data_key: 'a', storage: 'column' }, /^storage must be one of/],
    ['unset_receives on a tag topic', { name: 'A', tag_name: 'a', unset_receives: true }, /^unset_receives must be false/],
    ['a string position', { name: 'A', tag_name: 'a', position: '1' }, /^position must be a number/],
  ])('refuses %s: 422 {error} naming the field, nothing written', async (_name, body, message) => {
    const before = Number((await api.database.db('topics').where({ channel_id: channelId }).count<{ n: string }[]>({ n: '*' }))[0]!.n);
    const answer = await as().post('/api/v1/topics', body);
    expect([answer.status, Object.keys(answer.body), answer.body.error]).toEqual([422, ['error'], expect.stringMatching(message)]);
    expect(Number((await api.database.db('topics').where({ channel_id: channelId }).count<{ n: string }[]>({ n: '*' }))[0]!.n)).toBe(before);
  });

  it('refuses duplicates of a name (any case), a key or a tag in the channel, not in another channel', async () => {
    const a = await newTopic({ name: 'Digest', custom_data_key: 'digest' });
    const b = await newTopic({ name: 'Offers', tag_name: 'offers' });
    for (const [body, field] of [
      [{ name: 'DIGEST', custom_data_key: 'digest2' }, 'name'],
      [{ name: 'Digest 2', custom_data_key: 'digest' }, 'custom_data_key'],
      [{ name: 'Offers 2', tag_name: 'offers' }, 'tag_name'],
    ] as const) {
      const answer = await as().post('/api/v1/topics', body);
      expect([answer.status, answer.body.error]).toEqual([422, expect.stringMatching(new RegExp(`^${field} has already been taken`))]);
    }
    const renamed = await as().patch(`/api/v1/topics/${b.id}`, { name: 'digest' });
    expect([renamed.status, renamed.body.error]).toEqual([422, expect.stringMatching(/^name has already been taken/)]);
    const other = await api.fixtures.aTenant();
    expect((await as(other.token).post('/api/v1/topics', { name: 'Digest', custom_data_key: 'digest' })).status).toBe(201);
    // Another channel's topic is nonexistent.
    expect((await as(other.token).get(`/api/v1/topics/${a.id}.json`)).status).toBe(404);
    expect((await as(other.token).delete(`/api/v1/topics/${a.id}`)).status).toBe(404);
    expect((await as().get('/api/v1/topics/abc.json')).body).toEqual({ error: 'Topic not found' });
    await as().delete(`/api/v1/topics/${a.id}`);
    await as().delete(`/api/v1/topics/${b.id}`);
  });

  it('keeps the storage: no switching kinds, no blank key, tag topics stay unset_receives false', async () => {
    const t = await newTopic({ name: 'Kind', custom_data_key: 'kind' });
    const tag = await newTopic({ name: 'Kind tag', tag_name: 'kind' });
    for (const [id, body, message] of [
      [t.id, { tag_name: 'x' }, /^tag_name cannot be set on a custom_data topic/],
      [t.id, { storage: 'tag' }, /^storage cannot be changed/],
      [t.id, { custom_data_key: null }, /^custom_data_key can't be blank/],
      [tag.id, { custom_data_key: 'x' }, /^custom_data_key cannot be set on a tag topic/],
      [tag.id, { unset_receives: true }, /^unset_receives must be false/],
    ] as const) {
      const answer = await as().patch(`/api/v1/topics/${id}`, body);
      expect([answer.status, answer.body.error]).toEqual([422, expect.stringMatching(message)]);
    }
    expect((await as().patch(`/api/v1/topics/${t.id}`, { custom_data_key: 'kind_2' })).body.custom_data_key).toBe('kind_2');
    await as().delete(`/api/v1/topics/${t.id}`);
    await as().delete(`/api/v1/topics/${tag.id}`);
  });

  it('needs subscribers_read to read and subscribers_write to write', async () => {
    const reader = await api.fixtures.aToken(channelId, ['subscribers_read']);
    const none = await api.fixtures.aToken(channelId, ['broadcasts_read']);
    expect((await as(reader).get('/api/v1/topics.json')).status).toBe(200);
    expect((await as(none).get('/api/v1/topics.json')).status).toBe(401);
    expect((await as(reader).post('/api/v1/topics', { name: 'X', tag_name: 'x' })).status).toBe(401);
  });

  it('counts yes, no, unset and receiving with the SQL functions, and shows each value in subscriber answers', async () => {
    const news = await newTopic({ name: 'News', custom_data_key: 'news', unset_receives: true });
    const vip = await newTopic({ name: 'VIP', tag_name: 'vip' });
    const values: Array<[string, Record<string, unknown>, string[]]> = [
      ['c1@example.test', { news: true }, ['vip']],
      ['c2@example.test', { news: '1' }, []],
      ['c3@example.test', { news: 0 }, []],
      ['c4@example.test', { news: 'yes' }, ['vip']],
      ['c5@example.test', {}, []],
      ['c6@example.test', { news: null }, []],
    ];
    for (const [email, customData, tags] of values) await api.fixtures.aSubscriber(channelId, email, { customData, tags });
    const shown = await as().get(`/api/v1/topics/${news.id}.json`);
    expect(shown.body.counts).toEqual({ yes: 2, no: 2, unset: 2, receiving: 4 });
    expect((await as().get(`/api/v1/topics/${vip.id}.json`)).body.counts).toEqual({ yes: 2, no: 0, unset: 4, receiving: 2 });

    const list = await as().get('/api/v1/subscribers.json');
    const byEmail = Object.fromEntries((list.body.subscribers as Array<{ email: string; topics: object }>).map((s) => [s.email, s.topics]));
    expect(byEmail['c1@example.test']).toEqual({ [news.id]: true, [vip.id]: true });
    expect(byEmail['c3@example.test']).toEqual({ [news.id]: false, [vip.id]: null });
    expect(byEmail['c4@example.test']).toEqual({ [news.id]: false, [vip.id]: true });
    expect(byEmail['c6@example.test']).toEqual({ [news.id]: null, [vip.id]: null });
    expectResponseMatchesDocument(list);
    const found = await as().get('/api/v1/subscribers/find.json?email=c2@example.test');
    expect(found.body.topics).toEqual({ [news.id]: true, [vip.id]: null });
    // Another channel's subscribers see its own topics only.
    const other = await api.fixtures.aTenant();
    await api.fixtures.aSubscriber(other.channel.id, 'c1@example.test', { customData: { news: true } });
    expect((await as(other.token).get('/api/v1/subscribers/find.json?email=c1@example.test')).body.topics).toEqual({});
    await as().delete(`/api/v1/topics/${news.id}`);
    await as().delete(`/api/v1/topics/${vip.id}`);
  });

  it('refuses DELETE while an unsent broadcast, a sequence or a form block uses it; data untouched', async () => {
    const t = await newTopic({ name: 'Used', custom_data_key: 'used' });
    await api.fixtures.aSubscriber(channelId, 'used@example.test', { customData: { used: true } });
    const draft = await api.fixtures.aBroadcast(channelId, { subject: 'S' });
    const sent = await api.fixtures.aBroadcast(channelId, { subject: 'S' });
    await api.database.db('broadcasts').whereIn('id', [draft.id, sent.id]).update({ topic_id: t.id });
    await api.database.db('broadcasts').where({ id: sent.id }).update({ status: 'sent' });
    const refusal = async (pattern: RegExp) => {
      const answer = await as().delete(`/api/v1/topics/${t.id}`);
      expect([answer.status, answer.body]).toEqual([422, { error: expect.stringMatching(pattern) }]);
    };
    await refusal(new RegExp(`broadcasts not yet sent \\(${draft.id}\\)`));
    await api.database.db('broadcasts').where({ id: draft.id }).update({ status: 'aborted' });

    const [sequence] = await api.database
      .db('sequences')
      .insert({ channel_id: channelId, label: 'S', topic_id: t.id, created_at: new Date(), updated_at: new Date() })
      .returning('id');
    await refusal(/sequences/);
    await api.database.db('sequences').where({ id: sequence.id }).update({ topic_id: null });

    const [form] = await api.database
      .db('opt_in_forms')
      .insert({ channel_id: channelId, identifier: '00000000-0000-4000-8000-000000000001', label: 'F', created_at: new Date(), updated_at: new Date() })
      .returning('id');
    const [block] = await api.database
      .db('opt_in_form_blocks')
      .insert({ form_id: form.id, placement: 'form', block_type: 'topic', position: 0, topic_id: t.id, created_at: new Date(), updated_at: new Date() })
      .returning('id');
    await refusal(new RegExp(`opt-in form blocks \\(${block.id}\\)`));
    await api.database.db('opt_in_form_blocks').where({ id: block.id }).delete();

    expect((await as().delete(`/api/v1/topics/${t.id}`)).status).toBe(200);
    // Broadcasts that send no more forget it; subscriber data is as it was.
    expect((await api.database.db('broadcasts').whereIn('id', [draft.id, sent.id]).select('topic_id')).map((b) => b.topic_id)).toEqual([null, null]);
    expect((await api.database.db('subscribers').where({ email: 'used@example.test' }).first()).custom_data).toEqual({ used: true });
  });
});
