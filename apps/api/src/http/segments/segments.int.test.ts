import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

type Rule = Record<string, unknown>;

/** docs/segments.md: the segments API, each operator on each field kind, evaluated by PostgreSQL. */
describe('segments API', () => {
  const api = useApi();
  let token: string;
  let channelId: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    const f = api.fixtures;
    const jan = new Date('2026-01-15T00:00:00Z');
    const jun = new Date('2026-06-15T00:00:00Z');
    ids.ann = (
      await f.aSubscriber(
        channelId,
        'ann@acme.com',
        { firstName: 'Ann', lastName: 'Lee', source: 'import', tags: ['vip', 'beta'], customData: { plan: 'pro', seats: 10, trial: false } },
        jan,
      )
    ).id;
    ids.bob = (
      await f.aSubscriber(
        channelId,
        'bob@other.org',
        { firstName: 'Bob', source: 'api_subscription', tags: ['beta'], customData: { plan: 'free', seats: 2 } },
        jun,
      )
    ).id;
    ids.cy = (await f.aSubscriber(channelId, 'cy@acme.com', { customData: { plan: 'Pro Max', seats: '7' } }, jun)).id;
    ids.dee = (await f.aSubscriber(channelId, 'dee@acme.org', { firstName: '', requiresConfirmation: true, tags: ['vip'] }, jun)).id;
    await api.database.db('subscribers').where({ id: ids.cy }).update({ is_active: false, confirmed_at: jun });
    await api.database.db('subscribers').where({ id: ids.ann }).update({ confirmed_at: jan });
    // Another channel's subscriber matches everything, and must never show up.
    const other = await f.aChannel();
    await f.aSubscriber(other.id, 'ann@acme.com', { tags: ['vip', 'beta'], customData: { plan: 'pro' } });
  });

  const as = (t = token) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${t}`),
    post: (path: string, body: object) => request(api.app).post(path).set('Authorization', `Bearer ${t}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${t}`).send(body),
    delete: (path: string) => request(api.app).delete(path).set('Authorization', `Bearer ${t}`),
  });

  /** The member emails of a segment with these rules, read through the API. */
  async function members(rules: Rule[], match: 'all' | 'any' = 'all'): Promise<string[]> {
    const created = await as().post('/api/v1/segments', { segment: { name: 'probe', match, rules } });
    // Rules come back as sent (dates as full ISO 8601 instants).
    const sent = rules.map((r) => (r.field === 'created_at' || r.field === 'subscribed_at' ? { ...r, value: new Date(r.value as string).toISOString() } : r));
    expect([created.status, created.body]).toEqual([201, expect.objectContaining({ match, rules: sent })]);
    const got = await as().get(`/api/v1/segments/${created.body.id}.json`);
    expect(got.status).toBe(200);
    expect(got.body.subscribers_count).toBe(got.body.subscribers.length);
    return (got.body.subscribers as Array<{ email: string }>).map((s) => s.email).sort();
  }

  it.each<[string, Rule, string[]]>([
    ['text equals (case-insensitive)', { field: 'email', operator: 'equals', value: 'ANN@acme.com' }, ['ann@acme.com']],
    ['text not_equals (null included)', { field: 'first_name', operator: 'not_equals', value: 'ann' }, ['bob@other.org', 'cy@acme.com', 'dee@acme.org']],
    ['text contains', { field: 'email', operator: 'contains', value: '@acme' }, ['ann@acme.com', 'cy@acme.com', 'dee@acme.org']],
    ['text contains escapes wildcards', { field: 'email', operator: 'contains', value: '%' }, []],
    ['text starts_with', { field: 'first_name', operator: 'starts_with', value: 'B' }, ['bob@other.org']],
    ['text ends_with', { field: 'email', operator: 'ends_with', value: '.com' }, ['ann@acme.com', 'cy@acme.com']],
    ['text exists', { field: 'first_name', operator: 'exists' }, ['ann@acme.com', 'bob@other.org']],
    ['text not_exists', { field: 'last_name', operator: 'not_exists' }, ['bob@other.org', 'cy@acme.com', 'dee@acme.org']],
    ['source equals', { field: 'source', operator: 'equals', value: 'import' }, ['ann@acme.com']],
    ['tags includes', { field: 'tags', operator: 'includes', value: 'vip' }, ['ann@acme.com', 'dee@acme.org']],
    ['tags excludes', { field: 'tags', operator: 'excludes', value: 'beta' }, ['cy@acme.com', 'dee@acme.org']],
    ['tags exists', { field: 'tags', operator: 'exists' }, ['ann@acme.com', 'bob@other.org', 'dee@acme.org']],
    ['tags not_exists', { field: 'tags', operator: 'not_exists' }, ['cy@acme.com']],
    ['custom equals string', { field: 'custom_data.plan', operator: 'equals', value: 'pro' }, ['ann@acme.com']],
    ['custom equals number', { field: 'custom_data.seats', operator: 'equals', value: 2 }, ['bob@other.org']],
    ['custom equals boolean', { field: 'custom_data.trial', operator: 'equals', value: false }, ['ann@acme.com']],
    [
      'custom not_equals (missing included)',
      { field: 'custom_data.plan', operator: 'not_equals', value: 'pro' },
      ['bob@other.org', 'cy@acme.com', 'dee@acme.org'],
    ],
    ['custom contains', { field: 'custom_data.plan', operator: 'contains', value: 'PRO' }, ['ann@acme.com', 'cy@acme.com']],
    ['custom starts_with', { field: 'custom_data.plan', operator: 'starts_with', value: 'fr' }, ['bob@other.org']],
    ['custom ends_with', { field: 'custom_data.plan', operator: 'ends_with', value: 'max' }, ['cy@acme.com']],
    ['custom gt (numbers only)', { field: 'custom_data.seats', operator: 'gt', value: 5 }, ['ann@acme.com']],
    ['custom lt', { field: 'custom_data.seats', operator: 'lt', value: 5 }, ['bob@other.org']],
    ['custom exists', { field: 'custom_data.seats', operator: 'exists' }, ['ann@acme.com', 'bob@other.org', 'cy@acme.com']],
    ['custom not_exists', { field: 'custom_data.plan', operator: 'not_exists' }, ['dee@acme.org']],
    ['date before', { field: 'created_at', operator: 'before', value: '2026-03-01' }, ['ann@acme.com']],
    ['date after', { field: 'subscribed_at', operator: 'after', value: '2026-03-01T00:00:00Z' }, ['bob@other.org', 'cy@acme.com', 'dee@acme.org']],
    ['confirmation equals', { field: 'confirmation_status', operator: 'equals', value: 'confirmed' }, ['ann@acme.com', 'cy@acme.com']],
    ['confirmation not_equals', { field: 'confirmation_status', operator: 'not_equals', value: 'confirmed' }, ['bob@other.org', 'dee@acme.org']],
    ['boolean equals', { field: 'is_active', operator: 'equals', value: false }, ['cy@acme.com']],
    ['boolean not_equals', { field: 'is_active', operator: 'not_equals', value: false }, ['ann@acme.com', 'bob@other.org', 'dee@acme.org']],
  ])('%s', async (_name, rule, expected) => {
    expect(await members([rule])).toEqual(expected);
  });

  it('match all needs every rule, match any one of them; no rules is everyone', async () => {
    const rules = [
      { field: 'tags', operator: 'includes', value: 'beta' },
      { field: 'email', operator: 'ends_with', value: '.org' },
    ];
    expect(await members(rules, 'all')).toEqual(['bob@other.org']);
    expect(await members(rules, 'any')).toEqual(['ann@acme.com', 'bob@other.org', 'dee@acme.org']);
    expect(await members([])).toEqual(['ann@acme.com', 'bob@other.org', 'cy@acme.com', 'dee@acme.org']);
  });

  it('creates flat or nested, lists, reads a page of members, updates and deletes', async () => {
    const created = await as().post('/api/v1/segments', {
      name: ' VIPs ',
      description: 'Top',
      rules: [{ field: 'tags', operator: 'includes', value: 'vip' }],
      colour: 'gold',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'VIPs',
      description: 'Top',
      match: 'all',
      rules: [{ field: 'tags', operator: 'includes', value: 'vip' }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      warnings: [{ code: 'unrecognized_parameter', param: 'colour', message: expect.any(String) }],
    });
    expectResponseMatchesDocument(created);
    const id = created.body.id as number;

    const one = await as().get(`/api/v1/segments/${id}.json`);
    expect(one.body).toMatchObject({ id, subscribers_count: 2, pagination: { total: 2, count: 2, from: 1, to: 2, current: 1, total_pages: 1 } });
    expect(one.body.subscribers.map((s: { id: number }) => s.id)).toEqual([ids.ann, ids.dee]);
    expectResponseMatchesDocument(one);
    const beyond = await as().get(`/api/v1/segments/${id}.json?page=2`);
    expect(beyond.body).toMatchObject({ subscribers_count: 2, subscribers: [], pagination: { count: 0, current: 2 } });
    expect((await as().get(`/api/v1/segments/${id}.json?page=0`)).status).toBe(422);

    const list = await as().get('/api/v1/segments.json?limit=1');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id, name: 'VIPs' })]);
    expect(list.body.total).toBeGreaterThan(1);
    expectResponseMatchesDocument(list);

    const matchOnly = await as().patch(`/api/v1/segments/${id}`, { segment: { match: 'any' } });
    expect(matchOnly.body).toMatchObject({ match: 'any', rules: [{ field: 'tags', operator: 'includes', value: 'vip' }], name: 'VIPs' });
    const rulesOnly = await as().patch(`/api/v1/segments/${id}`, { rules: [{ field: 'is_active', operator: 'equals', value: false }] });
    expect(rulesOnly.body).toMatchObject({ match: 'any', rules: [{ field: 'is_active', operator: 'equals', value: false }] });
    expect((await as().get(`/api/v1/segments/${id}.json`)).body.subscribers_count).toBe(1);

    expect((await as().delete(`/api/v1/segments/${id}`)).body).toEqual({ message: 'Segment deleted' });
    expect((await as().get(`/api/v1/segments/${id}.json`)).status).toBe(404);
    expect((await as().delete(`/api/v1/segments/${id}`)).status).toBe(404);
  });

  it.each<[object, object]>([
    [
      {
        segment: {
          name: 'x',
          rules: [
            { field: 'email', operator: 'contains', value: 'a' },
            { field: 'colour', operator: 'equals', value: 'red' },
          ],
        },
      },
      { 'rules[1]': ['field colour is not known'] },
    ],
    [{ name: 'x', rules: [{ field: 'tags', operator: 'gt', value: 1 }] }, { 'rules[0]': ['operator gt does not apply to tags'] }],
    [{ name: 'x', rules: [{ field: 'custom_data.seats', operator: 'gt', value: 'many' }] }, { 'rules[0]': ['value must be a number'] }],
    [{ name: 'x', rules: [{ field: 'opened_broadcast', operator: 'equals', value: 999999 }] }, { 'rules[0]': ['broadcast 999999 does not exist'] }],
    [{ name: 'x', match: 'most', rules: [] }, { match: ['must be all or any'] }],
    [{ name: 'x', rules: 'vip' }, { rules: ['must be an array of rules'] }],
    [{ name: ' ', rules: [] }, { name: ["can't be blank"] }],
    [{ rules: [] }, { name: ["can't be blank"] }],
  ])('refuses %j with a 422 naming what cannot be evaluated', async (body, errors) => {
    const before = await api.database.db('segments').count<{ count: string }[]>({ count: '*' }).first();
    const res = await as().post('/api/v1/segments', body);
    expect([res.status, res.body]).toEqual([422, { errors }]);
    const after = await api.database.db('segments').count<{ count: string }[]>({ count: '*' }).first();
    expect(after?.count).toBe(before?.count);
  });

  it('refuses deleting a segment a scheduled or sending broadcast targets, allows it for a draft', async () => {
    const segment = (await as().post('/api/v1/segments', { name: 'targeted', rules: [] })).body.id as number;
    const broadcast = await api.fixtures.aBroadcast(channelId, { segmentIds: [segment] });
    await api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'sending' });
    const refused = await as().delete(`/api/v1/segments/${segment}`);
    expect([refused.status, refused.body]).toEqual([422, { error: 'Segment is targeted by a scheduled or sending broadcast' }]);
    await api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'draft' });
    expect((await as().delete(`/api/v1/segments/${segment}`)).status).toBe(200);
  });

  it('scopes segments to the channel and checks the permissions', async () => {
    const segment = (await as().post('/api/v1/segments', { name: 'mine', rules: [] })).body.id as number;
    const stranger = (await api.fixtures.aTenant()).token;
    expect((await as(stranger).get(`/api/v1/segments/${segment}.json`)).status).toBe(404);
    expect((await as(stranger).patch(`/api/v1/segments/${segment}`, { name: 'theirs' })).status).toBe(404);
    expect((await as(stranger).delete(`/api/v1/segments/${segment}`)).status).toBe(404);
    expect((await as(stranger).get('/api/v1/segments.json')).body).toEqual({ data: [], total: 0 });

    const readOnly = await api.fixtures.aToken(channelId, ['segments_read']);
    expect((await as(readOnly).get(`/api/v1/segments/${segment}.json`)).status).toBe(200);
    expect((await as(readOnly).post('/api/v1/segments', { name: 'no' })).status).toBe(401);
    const writeOnly = await api.fixtures.aToken(channelId, ['segments_write']);
    expect((await as(writeOnly).get('/api/v1/segments.json')).status).toBe(401);
    expect((await as(writeOnly).patch(`/api/v1/segments/${segment}`, { name: 'renamed' })).body.name).toBe('renamed');
    expect((await as().get('/api/v1/segments/abc.json')).status).toBe(404);
  });
});
