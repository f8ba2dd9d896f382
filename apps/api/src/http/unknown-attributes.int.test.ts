import request from 'supertest';
import { expectResponseMatchesDocument } from '../openapi/test-support/match-document';
import { startApi, type ApiHarness } from '../test-support/harness';

/**
 * docs/discovery.md "Warnings", as the reference service's clients found it: an unknown attribute on any
 * create or update of any resource still writes, and answers an `unrecognized_parameter` warning
 * (docs/discovery.md, Warnings). One row per create (a POST documented with a 201) and update (a
 * PATCH) of the OpenAPI document; a new one without a row here fails the first test.
 */
describe('an unknown attribute on every create and update', () => {
  let api: ApiHarness;
  let token: string;
  let admin: string;
  let channelId: number;
  let otherChannel: number;
  const ids: Record<string, number> = {};
  const db = () => api.database.db;
  const EXTRA = 'mystery_attribute';
  const extra = { [EXTRA]: 'x' };

  const send = (method: 'post' | 'patch', path: string, body: object, as = token) =>
    request(api.app)[method](path).set('Authorization', `Bearer ${as}`).send(body);

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '0' } });
    ({
      token,
      channel: { id: channelId },
    } = await api.fixtures.aTenant());
    otherChannel = (await api.fixtures.aChannel()).id;
    admin = await api.fixtures.anAdminToken();
    const made = async (path: string, body: object) => {
      const res = await send('post', path, body);
      expect([path, res.status]).toEqual([path, 201]);
      return res.body.id as number;
    };
    ids.broadcast = await made('/api/v1/broadcasts', { broadcast: { subject: 'S', body: 'B' } });
    await made('/api/v1/subscribers.json', { subscriber: { email: 'known@example.com' } });
    ids.endpoint = await made('/api/v1/webhook_endpoints', { webhook_endpoint: { url: 'http://127.0.0.1:9/h', event_types: ['email.sent'] } });
    ids.template = await made('/api/v1/templates', { template: { label: 'T', subject: 'S', body: 'B' } });
    ids.segment = await made('/api/v1/segments', { segment: { name: 'Seg' } });
    ids.sequence = await made('/api/v1/sequences', { sequence: { label: 'Seq' } });
    ids.step = await made(`/api/v1/sequences/${ids.sequence}/steps`, { step: { subject: 'S' } });
    ids.form = await made('/api/v1/opt_in_forms', { opt_in_form: { label: 'F' } });
    ids.server = await made('/api/v1/email_servers', { email_server: { host: '127.0.0.1', port: 2525, tls: 'none' } });
    ids.topic = await made('/api/v1/topics', { topic: { name: 'News', custom_data_key: 'news' } });
    const user = await send('post', '/api/v1/users', { user: { email: 'teammate@example.com', password: 'a long enough password' } }, admin);
    expect(user.status).toBe(201);
    ids.user = user.body.id;
  });
  afterAll(() => api.close());

  interface Row {
    method: 'post' | 'patch';
    /** As documented, `{id}`/`{step_id}` filled from `ids` when sent. */
    path: string;
    body: () => object;
    admin?: true;
    /** What the database holds once the write happened. */
    written: (body: any) => Promise<unknown>;
    expected: unknown;
  }
  const one = async (table: string, where: object, column: string) =>
    ((await db()(table).where(where).first(column)) as Record<string, unknown> | undefined)?.[column];

  const ROWS: Row[] = [
    {
      method: 'post',
      path: '/api/v1/broadcasts',
      body: () => ({ broadcast: { subject: 'S', body: 'B', name: 'made', ...extra } }),
      written: (b) => one('broadcasts', { id: b.id }, 'name'),
      expected: 'made',
    },
    {
      method: 'patch',
      path: '/api/v1/broadcasts/{id}',
      body: () => ({ broadcast: { name: 'renamed', ...extra } }),
      written: () => one('broadcasts', { id: ids.broadcast }, 'name'),
      expected: 'renamed',
    },
    {
      method: 'post',
      path: '/api/v1/subscribers.json',
      body: () => ({ subscriber: { email: 'new@example.com', first_name: 'New', ...extra } }),
      written: () => one('subscribers', { channel_id: channelId, email: 'new@example.com' }, 'first_name'),
      expected: 'New',
    },
    {
      method: 'patch',
      path: '/api/v1/subscribers.json',
      body: () => ({ email: 'known@example.com', subscriber: { first_name: 'Known', ...extra } }),
      written: () => one('subscribers', { channel_id: channelId, email: 'known@example.com' }, 'first_name'),
      expected: 'Known',
    },
    {
      method: 'post',
      path: '/api/v1/webhook_endpoints',
      body: () => ({ webhook_endpoint: { url: 'http://127.0.0.1:9/new', event_types: ['email.sent'], ...extra } }),
      written: (b) => one('webhook_endpoints', { id: b.id }, 'url'),
      expected: 'http://127.0.0.1:9/new',
    },
    {
      method: 'patch',
      path: '/api/v1/webhook_endpoints/{id}',
      body: () => ({ webhook_endpoint: { description: 'changed', ...extra } }),
      written: () => one('webhook_endpoints', { id: ids.endpoint }, 'description'),
      expected: 'changed',
    },
    {
      method: 'post',
      path: '/api/v1/suppressions.json',
      body: () => ({ email: 'quiet@example.com', ...extra }),
      written: () => one('suppressions', { channel_id: channelId, email: 'quiet@example.com' }, 'email'),
      expected: 'quiet@example.com',
    },
    {
      method: 'post',
      path: '/api/v1/global_suppressions.json',
      admin: true,
      body: () => ({ global_suppression: { email: 'everywhere@example.com', ...extra } }),
      written: () => one('suppressions', { email: 'everywhere@example.com' }, 'email'),
      expected: 'everywhere@example.com',
    },
    {
      method: 'post',
      path: '/api/v1/templates',
      body: () => ({ template: { label: 'Made', subject: 'S', ...extra } }),
      written: (b) => one('templates', { id: b.id }, 'label'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/templates/{id}',
      body: () => ({ template: { label: 'Relabelled', ...extra } }),
      written: () => one('templates', { id: ids.template }, 'label'),
      expected: 'Relabelled',
    },
    {
      method: 'post',
      path: '/api/v1/transactionals.json',
      body: () => ({ to: 'receipt@example.com', subject: 'Receipt', body: 'Thanks', ...extra }),
      written: (b) => one('transactionals', { id: b.id }, 'subject'),
      expected: 'Receipt',
    },
    {
      method: 'post',
      path: '/api/v1/segments',
      body: () => ({ segment: { name: 'Made', ...extra } }),
      written: (b) => one('segments', { id: b.id }, 'name'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/segments/{id}',
      body: () => ({ segment: { name: 'Renamed', ...extra } }),
      written: () => one('segments', { id: ids.segment }, 'name'),
      expected: 'Renamed',
    },
    {
      method: 'patch',
      path: '/api/v1/channel/settings',
      body: () => ({ settings: { sender_name: 'Renamed sender', ...extra } }),
      written: () => one('channels', { id: channelId }, 'from_name'),
      expected: 'Renamed sender',
    },
    {
      method: 'post',
      path: '/api/v1/sequences',
      body: () => ({ sequence: { label: 'Made', ...extra } }),
      written: (b) => one('sequences', { id: b.id }, 'label'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/sequences/{id}',
      body: () => ({ sequence: { label: 'Relabelled', ...extra } }),
      written: () => one('sequences', { id: ids.sequence }, 'label'),
      expected: 'Relabelled',
    },
    {
      method: 'post',
      path: '/api/v1/sequences/{id}/add_subscriber',
      body: () => ({ email: 'enrolled@example.com', ...extra }),
      written: async () => (await db()('subscriber_sequences').where({ sequence_id: ids.sequence })).length,
      expected: 1,
    },
    {
      method: 'post',
      path: '/api/v1/sequences/{id}/steps',
      body: () => ({ step: { subject: 'Second', ...extra } }),
      written: async (b) =>
        (await request(api.app).get(`/api/v1/sequences/${ids.sequence}/steps/${b.id}`).set('Authorization', `Bearer ${token}`)).body.subject,
      expected: 'Second',
    },
    {
      method: 'patch',
      path: '/api/v1/sequences/{id}/steps/{step_id}',
      body: () => ({ step: { subject: 'Changed', ...extra } }),
      written: async () =>
        (await request(api.app).get(`/api/v1/sequences/${ids.sequence}/steps/${ids.step}`).set('Authorization', `Bearer ${token}`)).body.subject,
      expected: 'Changed',
    },
    {
      method: 'post',
      path: '/api/v1/opt_in_forms',
      body: () => ({ opt_in_form: { label: 'Made', ...extra } }),
      written: (b) => one('opt_in_forms', { id: b.id }, 'label'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/opt_in_forms/{id}',
      body: () => ({ opt_in_form: { label: 'Relabelled', ...extra } }),
      written: () => one('opt_in_forms', { id: ids.form }, 'label'),
      expected: 'Relabelled',
    },
    {
      method: 'post',
      path: '/api/v1/opt_in_forms/{id}/variants',
      body: () => ({ name: 'Variant X', ...extra }),
      written: (b) => one('opt_in_forms', { id: b.id }, 'parent_form_id'),
      expected: 'the main form', // replaced in the test: its id
    },
    {
      method: 'post',
      path: '/api/v1/opt_in_forms/{id}/duplicate',
      body: () => ({ label: 'Copied', ...extra }),
      written: (b) => one('opt_in_forms', { id: b.id }, 'label'),
      expected: 'Copied',
    },
    {
      method: 'post',
      path: '/api/v1/email_servers',
      body: () => ({ email_server: { name: 'Made', host: '127.0.0.1', port: 2526, tls: 'none', ...extra } }),
      written: (b) => one('email_servers', { id: b.id }, 'name'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/email_servers/{id}',
      body: () => ({ email_server: { name: 'Renamed', ...extra } }),
      written: () => one('email_servers', { id: ids.server }, 'name'),
      expected: 'Renamed',
    },
    {
      method: 'post',
      path: '/api/v1/email_servers/{id}/copy_to_channel',
      admin: true,
      body: () => ({ target_channel_id: otherChannel, ...extra }),
      written: async (b) => Number(await one('email_servers', { id: b.id }, 'channel_id')),
      expected: 0, // replaced in the test: the other channel's id
    },
    {
      method: 'post',
      path: '/api/v1/topics',
      body: () => ({ topic: { name: 'Made', custom_data_key: 'made', ...extra } }),
      written: (b) => one('topics', { id: b.id }, 'name'),
      expected: 'Made',
    },
    {
      method: 'patch',
      path: '/api/v1/topics/{id}',
      body: () => ({ topic: { name: 'Renamed', ...extra } }),
      written: () => one('topics', { id: ids.topic }, 'name'),
      expected: 'Renamed',
    },
    {
      method: 'post',
      path: '/api/v1/users',
      admin: true,
      body: () => ({ user: { email: 'made-user@example.com', password: 'a long enough password', ...extra } }),
      written: (b) => one('users', { id: b.id }, 'email'),
      expected: 'made-user@example.com',
    },
    {
      method: 'patch',
      path: '/api/v1/users/{id}',
      admin: true,
      body: () => ({ user: { first_name: 'Renamed', ...extra } }),
      written: () => one('users', { id: ids.user }, 'first_name'),
      expected: 'Renamed',
    },
    {
      method: 'patch',
      path: '/api/v1/users/{id}/system_permissions',
      admin: true,
      body: () => ({ permissions: { user_management: true }, ...extra }),
      written: async () => ((await one('users', { id: ids.user }, 'system_permissions')) as Record<string, boolean>).user_management,
      expected: true,
    },
  ];

  it('has a row for every create and update the OpenAPI document lists', async () => {
    const res = await request(api.app).get('/api/v1/openapi.json');
    const documented = Object.entries(res.body.paths as Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, item]) => [
        ...(item.patch?.requestBody !== undefined ? [`patch ${path}`] : []),
        ...(item.post?.requestBody !== undefined && item.post.responses['201'] !== undefined ? [`post ${path}`] : []),
      ]);
    expect(ROWS.map((r) => `${r.method} ${r.path}`).sort()).toEqual(documented.sort());
  });

  const resourcePath = (row: Row) =>
    row.path
      .replace(
        '{id}',
        String(
          row.path.startsWith('/api/v1/broadcasts')
            ? ids.broadcast
            : row.path.startsWith('/api/v1/webhook_endpoints')
              ? ids.endpoint
              : row.path.startsWith('/api/v1/templates')
                ? ids.template
                : row.path.startsWith('/api/v1/segments')
                  ? ids.segment
                  : row.path.startsWith('/api/v1/sequences')
                    ? ids.sequence
                    : row.path.startsWith('/api/v1/opt_in_forms')
                      ? ids.form
                      : row.path.startsWith('/api/v1/email_servers')
                        ? ids.server
                        : row.path.startsWith('/api/v1/users')
                          ? ids.user
                          : ids.topic,
        ),
      )
      .replace('{step_id}', String(ids.step));

  it.each(ROWS.map((r) => [`${r.method} ${r.path}`, r] as const))('%s writes and warns of the unknown attribute', async (_name, row) => {
    const res = await send(row.method, resourcePath(row), row.body(), row.admin ? admin : token);
    expect(res.status).toBeLessThan(300);
    expect(res.body.warnings).toEqual([{ code: 'unrecognized_parameter', param: EXTRA, message: expect.stringContaining(EXTRA) }]);
    expectResponseMatchesDocument(res);
    const expected = row.path.endsWith('copy_to_channel') ? otherChannel : row.path.endsWith('/variants') ? String(ids.form) : row.expected;
    expect(String(await row.written(res.body))).toBe(String(expected));
  });

  it('a replayed transactional answers its warnings again, with Idempotency-Replayed: true', async () => {
    const body = { to: 'twice@example.com', subject: 'Once', body: 'B', ...extra };
    const first = await send('post', '/api/v1/transactionals.json', body).set('Idempotency-Key', 'warned-1');
    const again = await send('post', '/api/v1/transactionals.json', body).set('Idempotency-Key', 'warned-1');
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body).toEqual(first.body);
    expect(again.body.warnings).toEqual([expect.objectContaining({ code: 'unrecognized_parameter', param: EXTRA })]);
    expect([first.headers['idempotency-replayed'], again.headers['idempotency-replayed']]).toEqual([undefined, 'true']);
    expect(await db()('transactionals').where({ subject: 'Once' })).toHaveLength(1);
  });
});
