import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** docs/segments.md, "Counting unsaved rules": POST /api/v1/segments/count. */
describe('counting unsaved segment rules', () => {
  const api = useApi();
  let token: string;
  let channelId: number;
  let otherBroadcastId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    const f = api.fixtures;
    await f.aSubscriber(channelId, 'ann@acme.com', { tags: ['vip', 'beta'], customData: { plan: 'pro' } });
    await f.aSubscriber(channelId, 'bob@other.org', { tags: ['beta'], customData: { plan: 'free' } });
    await f.aSubscriber(channelId, 'cy@acme.com', { customData: { plan: 'pro' } });
    const gone = await f.aSubscriber(channelId, 'dee@acme.com', { tags: ['vip'] });
    await api.database.db('subscribers').where({ id: gone.id }).update({ redacted_at: new Date() });
    // Another channel's subscribers match every rule below and must never be counted.
    const other = await f.aChannel();
    for (const email of ['ann@acme.com', 'x@acme.com', 'y@acme.com'])
      await f.aSubscriber(other.id, email, { tags: ['vip', 'beta'], customData: { plan: 'pro' } });
    otherBroadcastId = (await f.aBroadcast(other.id)).id;
  });

  const count = (body: object, t = token) => request(api.app).post('/api/v1/segments/count').set('Authorization', `Bearer ${t}`).send(body);

  it.each<[string, object, number]>([
    ['no rules: the whole channel (redacted subscribers aside)', { rules: [] }, 3],
    ['an empty body: no rules', {}, 3],
    ['one rule, nested under segment', { segment: { rules: [{ field: 'tags', operator: 'includes', value: 'vip' }] } }, 1],
    [
      'all of two rules',
      {
        match: 'all',
        rules: [
          { field: 'email', operator: 'contains', value: '@acme' },
          { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
        ],
      },
      2,
    ],
    [
      'any of two rules',
      {
        match: 'any',
        rules: [
          { field: 'tags', operator: 'includes', value: 'beta' },
          { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
        ],
      },
      3,
    ],
    ['a rule nobody matches', { rules: [{ field: 'email', operator: 'equals', value: 'x@acme.com' }] }, 0],
  ])('counts %s, this channel only', async (_name, body, expected) => {
    const res = await count(body);
    expect([res.status, res.body]).toEqual([200, { subscribers_count: expected }]);
    expectResponseMatchesDocument(res);
  });

  it('saves nothing: no segment is created by counting', async () => {
    const before = await api.database.db('segments').where({ channel_id: channelId }).count<{ count: string }[]>({ count: '*' });
    expect((await count({ name: 'Would-be', rules: [{ field: 'tags', operator: 'exists' }] })).body).toEqual({ subscribers_count: 2 });
    const after = await api.database.db('segments').where({ channel_id: channelId }).count<{ count: string }[]>({ count: '*' });
    expect(after).toEqual(before);
  });

  it('follows the audience: a subscriber added since is in the next count', async () => {
    const rules = [{ field: 'tags', operator: 'includes', value: 'new-tag' }];
    expect((await count({ rules })).body).toEqual({ subscribers_count: 0 });
    await api.fixtures.aSubscriber(channelId, 'new@acme.com', { tags: ['new-tag'] });
    expect((await count({ rules })).body).toEqual({ subscribers_count: 1 });
  });

  it.each<[string, object, Record<string, string[]>]>([
    [
      'an unknown field',
      {
        rules: [
          { field: 'tags', operator: 'includes', value: 'a' },
          { field: 'shoe_size', operator: 'equals', value: '9' },
        ],
      },
      { 'rules[1]': ['field shoe_size is not known'] },
    ],
    [
      'an operator the field does not take',
      { rules: [{ field: 'tags', operator: 'equals', value: 'a' }] },
      { 'rules[0]': ['operator equals does not apply to tags'] },
    ],
    ['a value of the wrong type', { rules: [{ field: 'is_active', operator: 'equals', value: 'yes' }] }, { 'rules[0]': ['value must be true or false'] }],
    ['a bad match', { match: 'most', rules: [] }, { match: ['must be all or any'] }],
    ['rules that are not an array', { rules: 'tags' }, { rules: ['must be an array of rules'] }],
    [
      'a broadcast id that is no id',
      { rules: [{ field: 'opened_broadcast', operator: 'equals', value: 0 }] },
      { 'rules[0]': ['value must be a broadcast id or "any"'] },
    ],
  ])('refuses %s with the 422 a create gives', async (_name, body, errors) => {
    const res = await count(body);
    expect([res.status, res.body]).toEqual([422, { errors }]);
    const created = await request(api.app)
      .post('/api/v1/segments')
      .set('Authorization', `Bearer ${token}`)
      .send({ name: 'x', ...body });
    expect([created.status, created.body]).toEqual([422, { errors }]);
  });

  it("refuses an engagement rule naming another channel's broadcast", async () => {
    const res = await count({ rules: [{ field: 'clicked_broadcast', operator: 'equals', value: otherBroadcastId }] });
    expect([res.status, res.body]).toEqual([422, { errors: { 'rules[0]': [`broadcast ${otherBroadcastId} does not exist`] } }]);
  });

  it('refuses rules over the cost bound, as a create does', async () => {
    const long = 'x'.repeat(999);
    const rules = Array.from({ length: 3 }, () => ({ field: 'email', operator: 'contains', value: long }));
    const res = await count({ rules });
    expect(res.status).toBe(422);
    expect(res.body.errors.rules[0]).toMatch(/^cost 3000 to evaluate, more than the maximum of 2000/);
  });

  it('warns about attributes it does not know, and still counts', async () => {
    const res = await count({ rules: [], colour: 'blue' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subscribers_count: expect.any(Number),
      warnings: [expect.objectContaining({ code: 'unrecognized_parameter', param: 'colour' })],
    });
  });

  it('needs segments_read, not segments_write', async () => {
    const writer = await api.fixtures.aToken(channelId, ['segments_write']);
    expect([(await count({ rules: [] }, writer)).status, (await count({ rules: [] }, writer)).body]).toEqual([401, { error: 'Unauthorized' }]);
    const reader = await api.fixtures.aToken(channelId, ['segments_read']);
    const res = await count({ rules: [] }, reader);
    expect(res.status).toBe(200);
    expect(res.body.subscribers_count).toBeGreaterThanOrEqual(3);
    expect((await request(api.app).post('/api/v1/segments/count').send({ rules: [] })).status).toBe(401);
  });
});
