import { PERMISSIONS, type Permission } from '@mailcast/domain';
import request from 'supertest';
import { startApi, type ApiHarness } from '../test-support/harness';

/**
 * Issue 8, isolation and auth, for every endpoint of the API: no token or a token without the
 * route's permission gets 401 `{"error": "Unauthorized"}`; a token of another channel gets the
 * resource's 404 (its lists are empty), and nothing of the first channel changes.
 */
describe('isolation and permissions on every endpoint', () => {
  let api: ApiHarness;
  let owner: string;
  let ownerChannel: number;
  let stranger: string;
  let ids: {
    broadcast: number;
    endpoint: number;
    email: string;
    server: number;
    segment: number;
    template: number;
    transactional: number;
    sequence: number;
    step: number;
    form: number;
    topic: number;
  };

  beforeAll(async () => {
    // Every operation's 401 without a token comes from one address: more than the default failed-auth limit.
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', AUTH_FAILURES_PER_MINUTE: '1000' } });
    const a = await api.fixtures.aTenant();
    owner = a.token;
    ownerChannel = a.channel.id;
    stranger = (await api.fixtures.aTenant()).token;
    const broadcast = await api.fixtures.aBroadcast(a.channel.id);
    await api.database
      .db('channels')
      .where({ id: a.channel.id })
      .update({ design: JSON.stringify({ colors: { accent: '#123456' } }), reputation_guard: JSON.stringify({ min_sent: 7 }) });
    const auth = { Authorization: `Bearer ${owner}` };
    const subscriber = await request(api.app)
      .post('/api/v1/subscribers.json')
      .set(auth)
      .send({ subscriber: { email: 'owner@example.com', first_name: 'Owner' } });
    expect(subscriber.status).toBe(201);
    const endpoint = await request(api.app)
      .post('/api/v1/webhook_endpoints')
      .set(auth)
      .send({ webhook_endpoint: { url: 'https://hooks.example.com/in', event_types: ['subscriber.created'] } });
    expect(endpoint.status).toBe(201);
    const server = await request(api.app)
      .post('/api/v1/email_servers')
      .set(auth)
      .send({ email_server: { host: '127.0.0.1', port: 9, tls: 'none' } });
    expect(server.status).toBe(201);
    const segment = await request(api.app)
      .post('/api/v1/segments')
      .set(auth)
      .send({ segment: { name: 'Owners' } });
    expect(segment.status).toBe(201);
    const template = await request(api.app)
      .post('/api/v1/templates')
      .set(auth)
      .send({ template: { label: 'Owner', subject: 'S', body: 'B' } });
    expect(template.status).toBe(201);
    const transactional = await request(api.app).post('/api/v1/transactionals.json').set(auth).send({ to: 'receipt@example.com', subject: 'S', body: 'B' });
    expect(transactional.status).toBe(201);
    expect((await request(api.app).post('/api/v1/suppressions.json').set(auth).send({ email: 'kept@example.com' })).status).toBe(201);
    const sequence = await request(api.app)
      .post('/api/v1/sequences')
      .set(auth)
      .send({ sequence: { label: 'Owners' } });
    expect(sequence.status).toBe(201);
    const step = await request(api.app)
      .post(`/api/v1/sequences/${sequence.body.id}/steps`)
      .set(auth)
      .send({ step: { subject: 'S' } });
    expect(step.status).toBe(201);
    expect((await request(api.app).post(`/api/v1/sequences/${sequence.body.id}/add_subscriber`).set(auth).send({ email: 'owner@example.com' })).status).toBe(
      201,
    );
    const form = await request(api.app)
      .post('/api/v1/opt_in_forms')
      .set(auth)
      .send({ opt_in_form: { label: 'Owners' } });
    expect(form.status).toBe(201);
    const topic = await request(api.app)
      .post('/api/v1/topics')
      .set(auth)
      .send({ topic: { name: 'News', custom_data_key: 'news' } });
    expect(topic.status).toBe(201);
    ids = {
      form: form.body.id,
      topic: topic.body.id,
      broadcast: broadcast.id,
      endpoint: endpoint.body.id,
      email: 'owner@example.com',
      server: server.body.id,
      segment: segment.body.id,
      template: template.body.id,
      transactional: transactional.body.id,
      sequence: sequence.body.id,
      step: step.body.id,
    };
  });
  afterAll(() => api.close());

  type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
  interface Operation {
    name: string;
    method: Method;
    path: () => string;
    permission: Permission;
    body?: () => object;
    /**
     * What another channel's token gets: the resource's 404, an empty list, or for what every
     * channel shares (an admin token's alone, docs/auth.md) the 403 every channel token gets.
     */
    stranger: { status: 404; error: string } | { status: 200; empty: (body: any) => unknown } | { status: 403; error: string };
  }

  const B = 'Broadcast not found';
  const S = 'Subscriber not found';
  const W = 'Webhook endpoint not found';
  const E = 'Email server not found';
  const SEG = 'Segment not found';
  const SEQ = 'Sequence not found';
  const FORM = 'Opt-in form not found';
  const TOPIC = 'Topic not found';
  const T = 'Template not found';
  const TX = 'Transactional not found';
  const GLOBAL = 'Admin API token required for global suppressions';
  const CROSS = 'Admin API token required for cross-channel operations';
  const USERS = 'Admin API token required for user management';
  const email = () => ({ email: ids.email });
  const OPERATIONS: Operation[] = [
    {
      name: 'list broadcasts',
      method: 'get',
      path: () => '/api/v1/broadcasts',
      permission: 'broadcasts_read',
      stranger: { status: 200, empty: (b) => b.total },
    },
    {
      name: 'get broadcast',
      method: 'get',
      path: () => `/api/v1/broadcasts/${ids.broadcast}`,
      permission: 'broadcasts_read',
      stranger: { status: 404, error: B },
    },
    {
      name: 'create broadcast',
      method: 'post',
      path: () => '/api/v1/broadcasts',
      permission: 'broadcasts_write',
      body: () => ({ broadcast: { subject: 'S' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update broadcast',
      method: 'patch',
      path: () => `/api/v1/broadcasts/${ids.broadcast}`,
      permission: 'broadcasts_write',
      body: () => ({ broadcast: { name: 'taken' } }),
      stranger: { status: 404, error: B },
    },
    {
      name: 'delete broadcast',
      method: 'delete',
      path: () => `/api/v1/broadcasts/${ids.broadcast}`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'send broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/send_broadcast`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'schedule broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/schedule_broadcast`,
      permission: 'broadcasts_write',
      body: () => ({ broadcast: { scheduled_send_at: '2099-01-01T10:00:00Z', scheduled_timezone: 'UTC' } }),
      stranger: { status: 404, error: B },
    },
    {
      name: 'cancel schedule',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/cancel_schedule`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'pause broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/pause_broadcast`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'resume broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/resume_broadcast`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'abort broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/abort_broadcast`,
      permission: 'broadcasts_write',
      stranger: { status: 404, error: B },
    },
    {
      name: 'preview broadcast',
      method: 'post',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/preview`,
      permission: 'broadcasts_read',
      body: email,
      stranger: { status: 404, error: B },
    },
    {
      name: 'statistics',
      method: 'get',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/statistics`,
      permission: 'broadcasts_read',
      stranger: { status: 404, error: B },
    },
    {
      name: 'timeline',
      method: 'get',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/statistics/timeline`,
      permission: 'broadcasts_read',
      stranger: { status: 404, error: B },
    },
    {
      name: 'link statistics',
      method: 'get',
      path: () => `/api/v1/broadcasts/${ids.broadcast}/statistics/links`,
      permission: 'broadcasts_read',
      stranger: { status: 404, error: B },
    },
    {
      name: 'list subscribers',
      method: 'get',
      path: () => '/api/v1/subscribers.json',
      permission: 'subscribers_read',
      stranger: { status: 200, empty: (b) => b.pagination.total },
    },
    {
      name: 'find subscriber',
      method: 'get',
      path: () => `/api/v1/subscribers/find.json?email=${ids.email}`,
      permission: 'subscribers_read',
      stranger: { status: 404, error: S },
    },
    {
      name: 'subscriber history',
      method: 'get',
      path: () => `/api/v1/subscribers/history.json?email=${ids.email}`,
      permission: 'subscribers_read',
      stranger: { status: 404, error: S },
    },
    {
      name: 'create subscriber',
      method: 'post',
      path: () => '/api/v1/subscribers.json',
      permission: 'subscribers_write',
      body: () => ({ subscriber: { email: 'someone@example.com' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update subscriber',
      method: 'patch',
      path: () => '/api/v1/subscribers.json',
      permission: 'subscribers_write',
      body: () => ({ subscriber: { email: ids.email, first_name: 'Taken' } }),
      stranger: { status: 404, error: S },
    },
    {
      name: 'deactivate',
      method: 'post',
      path: () => '/api/v1/subscribers/deactivate.json',
      permission: 'subscribers_write',
      body: email,
      stranger: { status: 404, error: S },
    },
    {
      name: 'activate',
      method: 'post',
      path: () => '/api/v1/subscribers/activate.json',
      permission: 'subscribers_write',
      body: email,
      stranger: { status: 404, error: S },
    },
    {
      name: 'add tags',
      method: 'post',
      path: () => '/api/v1/subscribers/add_tag.json',
      permission: 'subscribers_write',
      body: () => ({ ...email(), tags: ['x'] }),
      stranger: { status: 404, error: S },
    },
    {
      name: 'remove tags',
      method: 'delete',
      path: () => '/api/v1/subscribers/remove_tag.json',
      permission: 'subscribers_write',
      body: () => ({ ...email(), tags: ['x'] }),
      stranger: { status: 404, error: S },
    },
    {
      name: 'unsubscribe',
      method: 'post',
      path: () => '/api/v1/subscribers/unsubscribe.json',
      permission: 'subscribers_write',
      body: email,
      stranger: { status: 404, error: S },
    },
    {
      name: 'resubscribe',
      method: 'post',
      path: () => '/api/v1/subscribers/resubscribe.json',
      permission: 'subscribers_write',
      body: email,
      stranger: { status: 404, error: S },
    },
    {
      name: 'redact',
      method: 'post',
      path: () => '/api/v1/subscribers/redact.json',
      permission: 'subscribers_write',
      body: email,
      stranger: { status: 404, error: S },
    },
    {
      name: 'list webhook endpoints',
      method: 'get',
      path: () => '/api/v1/webhook_endpoints',
      permission: 'webhook_endpoints_read',
      stranger: { status: 200, empty: (b) => b.total },
    },
    {
      name: 'get webhook endpoint',
      method: 'get',
      path: () => `/api/v1/webhook_endpoints/${ids.endpoint}`,
      permission: 'webhook_endpoints_read',
      stranger: { status: 404, error: W },
    },
    {
      name: 'create webhook endpoint',
      method: 'post',
      path: () => '/api/v1/webhook_endpoints',
      permission: 'webhook_endpoints_write',
      body: () => ({ webhook_endpoint: { url: 'https://hooks.example.com/other', event_types: ['test.webhook'] } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update webhook endpoint',
      method: 'patch',
      path: () => `/api/v1/webhook_endpoints/${ids.endpoint}`,
      permission: 'webhook_endpoints_write',
      body: () => ({ webhook_endpoint: { description: 'taken' } }),
      stranger: { status: 404, error: W },
    },
    {
      name: 'delete webhook endpoint',
      method: 'delete',
      path: () => `/api/v1/webhook_endpoints/${ids.endpoint}`,
      permission: 'webhook_endpoints_write',
      stranger: { status: 404, error: W },
    },
    {
      name: 'test webhook endpoint',
      method: 'post',
      path: () => `/api/v1/webhook_endpoints/${ids.endpoint}/test`,
      permission: 'webhook_endpoints_write',
      body: () => ({}),
      stranger: { status: 404, error: W },
    },
    {
      name: 'webhook deliveries',
      method: 'get',
      path: () => `/api/v1/webhook_endpoints/${ids.endpoint}/deliveries`,
      permission: 'webhook_endpoints_read',
      stranger: { status: 404, error: W },
    },
    {
      name: 'list email servers',
      method: 'get',
      path: () => '/api/v1/email_servers',
      permission: 'email_servers_read',
      stranger: { status: 200, empty: (b) => b.total },
    },
    {
      name: 'get email server',
      method: 'get',
      path: () => `/api/v1/email_servers/${ids.server}`,
      permission: 'email_servers_read',
      stranger: { status: 404, error: E },
    },
    {
      name: 'create email server',
      method: 'post',
      path: () => '/api/v1/email_servers',
      permission: 'email_servers_write',
      body: () => ({ email_server: { host: '127.0.0.1', port: 2525, tls: 'none' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update email server',
      method: 'patch',
      path: () => `/api/v1/email_servers/${ids.server}`,
      permission: 'email_servers_write',
      body: () => ({ email_server: { name: 'taken' } }),
      stranger: { status: 404, error: E },
    },
    {
      name: 'delete email server',
      method: 'delete',
      path: () => `/api/v1/email_servers/${ids.server}`,
      permission: 'email_servers_write',
      stranger: { status: 404, error: E },
    },
    {
      name: 'test email server',
      method: 'post',
      path: () => `/api/v1/email_servers/${ids.server}/test_connection`,
      permission: 'email_servers_write',
      stranger: { status: 404, error: E },
    },
    {
      name: 'generate dkim key',
      method: 'post',
      path: () => `/api/v1/email_servers/${ids.server}/generate_dkim_key`,
      permission: 'email_servers_write',
      body: () => ({ dkim_domain: 'example.com' }),
      stranger: { status: 404, error: E },
    },
    {
      // A channel token never writes into another channel, whatever the body names (docs/email-servers.md).
      name: 'copy email server to channel',
      method: 'post',
      path: () => `/api/v1/email_servers/${ids.server}/copy_to_channel`,
      permission: 'email_servers_write',
      body: () => ({ target_channel_id: ownerChannel, broadcast_channel_id: ownerChannel }),
      stranger: { status: 403, error: CROSS },
    },
    {
      name: 'list segments',
      method: 'get',
      path: () => '/api/v1/segments.json',
      permission: 'segments_read',
      stranger: { status: 200, empty: (b) => b.total },
    },
    {
      name: 'get segment',
      method: 'get',
      path: () => `/api/v1/segments/${ids.segment}.json`,
      permission: 'segments_read',
      stranger: { status: 404, error: SEG },
    },
    {
      name: 'create segment',
      method: 'post',
      path: () => '/api/v1/segments',
      permission: 'segments_write',
      body: () => ({ segment: { name: 'Theirs' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'count segment rules',
      method: 'post',
      path: () => '/api/v1/segments/count',
      permission: 'segments_read',
      body: () => ({ rules: [{ field: 'email', operator: 'equals', value: 'owner@example.com' }] }),
      stranger: { status: 200, empty: (b) => b.subscribers_count },
    },
    {
      name: 'update segment',
      method: 'patch',
      path: () => `/api/v1/segments/${ids.segment}`,
      permission: 'segments_write',
      body: () => ({ segment: { name: 'taken' } }),
      stranger: { status: 404, error: SEG },
    },
    {
      name: 'delete segment',
      method: 'delete',
      path: () => `/api/v1/segments/${ids.segment}`,
      permission: 'segments_write',
      stranger: { status: 404, error: SEG },
    },
    { name: 'list sequences', method: 'get', path: () => '/api/v1/sequences', permission: 'sequences_read', stranger: { status: 200, empty: (b) => b.total } },
    {
      name: 'create sequence',
      method: 'post',
      path: () => '/api/v1/sequences',
      permission: 'sequences_write',
      body: () => ({ sequence: { label: 'Theirs' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'get sequence',
      method: 'get',
      path: () => `/api/v1/sequences/${ids.sequence}?include_steps=true`,
      permission: 'sequences_read',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'update sequence',
      method: 'patch',
      path: () => `/api/v1/sequences/${ids.sequence}`,
      permission: 'sequences_write',
      body: () => ({ sequence: { active: true } }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'delete sequence',
      method: 'delete',
      path: () => `/api/v1/sequences/${ids.sequence}`,
      permission: 'sequences_write',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'add sequence subscriber',
      method: 'post',
      path: () => `/api/v1/sequences/${ids.sequence}/add_subscriber`,
      permission: 'sequences_write',
      body: () => ({ email: 'theirs@example.com' }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'remove sequence subscriber',
      method: 'delete',
      path: () => `/api/v1/sequences/${ids.sequence}/remove_subscriber`,
      permission: 'sequences_write',
      body: () => ({ email: 'owner@example.com' }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'list sequence subscribers',
      method: 'get',
      path: () => `/api/v1/sequences/${ids.sequence}/list_subscribers`,
      permission: 'sequences_read',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'list sequence steps',
      method: 'get',
      path: () => `/api/v1/sequences/${ids.sequence}/steps`,
      permission: 'sequences_read',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'create sequence step',
      method: 'post',
      path: () => `/api/v1/sequences/${ids.sequence}/steps`,
      permission: 'sequences_write',
      body: () => ({ step: { subject: 'Theirs' } }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'get sequence step',
      method: 'get',
      path: () => `/api/v1/sequences/${ids.sequence}/steps/${ids.step}`,
      permission: 'sequences_read',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'update sequence step',
      method: 'patch',
      path: () => `/api/v1/sequences/${ids.sequence}/steps/${ids.step}`,
      permission: 'sequences_write',
      body: () => ({ step: { subject: 'taken' } }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'delete sequence step',
      method: 'delete',
      path: () => `/api/v1/sequences/${ids.sequence}/steps/${ids.step}`,
      permission: 'sequences_write',
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'move sequence step',
      method: 'post',
      path: () => `/api/v1/sequences/${ids.sequence}/steps/${ids.step}/move`,
      permission: 'sequences_write',
      body: () => ({ under_id: ids.step }),
      stranger: { status: 404, error: SEQ },
    },
    {
      name: 'list opt-in forms',
      method: 'get',
      path: () => '/api/v1/opt_in_forms',
      permission: 'opt_in_forms_read',
      stranger: { status: 200, empty: (b) => b.pagination.count },
    },
    {
      name: 'create opt-in form',
      method: 'post',
      path: () => '/api/v1/opt_in_forms',
      permission: 'opt_in_forms_write',
      body: () => ({ opt_in_form: { label: 'Theirs' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'get opt-in form',
      method: 'get',
      path: () => `/api/v1/opt_in_forms/${ids.form}`,
      permission: 'opt_in_forms_read',
      stranger: { status: 404, error: FORM },
    },
    {
      name: 'update opt-in form',
      method: 'patch',
      path: () => `/api/v1/opt_in_forms/${ids.form}`,
      permission: 'opt_in_forms_write',
      body: () => ({ opt_in_form: { label: 'taken' } }),
      stranger: { status: 404, error: FORM },
    },
    {
      name: 'delete opt-in form',
      method: 'delete',
      path: () => `/api/v1/opt_in_forms/${ids.form}`,
      permission: 'opt_in_forms_write',
      stranger: { status: 404, error: FORM },
    },
    {
      name: 'opt-in form analytics',
      method: 'get',
      path: () => `/api/v1/opt_in_forms/${ids.form}/analytics`,
      permission: 'opt_in_forms_read',
      stranger: { status: 404, error: FORM },
    },
    {
      name: 'create opt-in form variant',
      method: 'post',
      path: () => `/api/v1/opt_in_forms/${ids.form}/variants`,
      permission: 'opt_in_forms_write',
      body: () => ({}),
      stranger: { status: 404, error: FORM },
    },
    {
      name: 'duplicate opt-in form',
      method: 'post',
      path: () => `/api/v1/opt_in_forms/${ids.form}/duplicate`,
      permission: 'opt_in_forms_write',
      body: () => ({}),
      stranger: { status: 404, error: FORM },
    },
    { name: 'list topics', method: 'get', path: () => '/api/v1/topics.json', permission: 'subscribers_read', stranger: { status: 200, empty: (b) => b.total } },
    {
      name: 'get topic',
      method: 'get',
      path: () => `/api/v1/topics/${ids.topic}.json`,
      permission: 'subscribers_read',
      stranger: { status: 404, error: TOPIC },
    },
    {
      name: 'create topic',
      method: 'post',
      path: () => '/api/v1/topics',
      permission: 'subscribers_write',
      body: () => ({ topic: { name: 'Theirs', tag_name: 'theirs' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update topic',
      method: 'patch',
      path: () => `/api/v1/topics/${ids.topic}`,
      permission: 'subscribers_write',
      body: () => ({ topic: { description: 'taken' } }),
      stranger: { status: 404, error: TOPIC },
    },
    {
      name: 'delete topic',
      method: 'delete',
      path: () => `/api/v1/topics/${ids.topic}`,
      permission: 'subscribers_write',
      stranger: { status: 404, error: TOPIC },
    },
    {
      // The owner's kit has its own accent (set in beforeAll): a stranger sees its channel's defaults.
      name: 'get channel design',
      method: 'get',
      path: () => '/api/v1/channel/design',
      permission: 'templates_read',
      stranger: { status: 200, empty: (b) => (b.colors.accent === '#2563eb' ? 0 : 1) },
    },
    {
      // The owner's guard has its own min_sent (set in beforeAll): a stranger sees and writes its own channel's.
      name: 'get channel settings',
      method: 'get',
      path: () => '/api/v1/channel/settings',
      permission: 'channel_settings_read',
      stranger: { status: 200, empty: (b) => (b.reputation_guard.min_sent === 500 ? 0 : 1) },
    },
    {
      name: 'update channel settings',
      method: 'patch',
      path: () => '/api/v1/channel/settings',
      permission: 'channel_settings_write',
      body: () => ({ settings: { sender_name: 'Theirs' } }),
      stranger: { status: 200, empty: (b) => (b.reputation_guard.min_sent === 500 && b.sender_name === 'Theirs' ? 0 : 1) },
    },
    { name: 'list templates', method: 'get', path: () => '/api/v1/templates', permission: 'templates_read', stranger: { status: 200, empty: (b) => b.total } },
    { name: 'get template', method: 'get', path: () => `/api/v1/templates/${ids.template}`, permission: 'templates_read', stranger: { status: 404, error: T } },
    {
      // Renders what the caller sends for a sample subscriber: nothing of any channel's data.
      name: 'preview template',
      method: 'post',
      path: () => '/api/v1/templates/preview',
      permission: 'templates_read',
      body: () => ({ subject: 'Hi {{ subscriber.first_name }}', body: 'B' }),
      stranger: { status: 200, empty: (b) => (b.subject === 'Hi Jane' ? 0 : 1) },
    },
    {
      name: 'create template',
      method: 'post',
      path: () => '/api/v1/templates',
      permission: 'templates_write',
      body: () => ({ template: { label: 'Theirs', subject: 'S', body: 'B' } }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'update template',
      method: 'patch',
      path: () => `/api/v1/templates/${ids.template}`,
      permission: 'templates_write',
      body: () => ({ template: { label: 'taken' } }),
      stranger: { status: 404, error: T },
    },
    {
      name: 'delete template',
      method: 'delete',
      path: () => `/api/v1/templates/${ids.template}`,
      permission: 'templates_write',
      stranger: { status: 404, error: T },
    },
    {
      name: 'send transactional',
      method: 'post',
      path: () => '/api/v1/transactionals.json',
      permission: 'transactionals_write',
      body: () => ({ to: 'theirs@example.com', subject: 'S', body: 'B' }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'get transactional',
      method: 'get',
      path: () => `/api/v1/transactionals/${ids.transactional}.json`,
      permission: 'transactionals_read',
      stranger: { status: 404, error: TX },
    },
    {
      name: 'list transactionals',
      method: 'get',
      path: () => '/api/v1/transactionals.json',
      permission: 'transactionals_read',
      // The stranger's own send (the operation above) is in its log; the owner's is not.
      stranger: { status: 200, empty: (b) => b.data.filter((t: { to: string }) => t.to !== 'theirs@example.com').length },
    },
    {
      name: 'list transactional events',
      method: 'get',
      path: () => `/api/v1/transactionals/${ids.transactional}/events.json`,
      permission: 'transactionals_read',
      stranger: { status: 404, error: TX },
    },
    {
      name: 'list suppressions',
      method: 'get',
      path: () => '/api/v1/suppressions.json',
      permission: 'suppressions_read',
      stranger: { status: 200, empty: (b) => b.pagination.total },
    },
    {
      name: 'check suppression',
      method: 'get',
      path: () => '/api/v1/suppressions/check.json?email=kept@example.com',
      permission: 'suppressions_read',
      stranger: { status: 200, empty: (b) => (b.suppressed ? 1 : 0) },
    },
    {
      name: 'add suppression',
      method: 'post',
      path: () => '/api/v1/suppressions.json',
      permission: 'suppressions_write',
      body: () => ({ email: 'theirs@example.com' }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'remove suppression',
      method: 'delete',
      path: () => '/api/v1/suppressions.json',
      permission: 'suppressions_write',
      body: () => ({ email: 'kept@example.com' }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'bulk add suppressions',
      method: 'post',
      path: () => '/api/v1/suppressions/bulk.json',
      permission: 'suppressions_write',
      body: () => ({ emails: ['theirs@example.com'] }),
      stranger: { status: 200, empty: () => 0 },
    },
    {
      name: 'bulk remove suppressions',
      method: 'delete',
      path: () => '/api/v1/suppressions/bulk.json',
      permission: 'suppressions_write',
      body: () => ({ emails: ['kept@example.com'] }),
      stranger: { status: 200, empty: () => 0 },
    },
    // The installation-wide list is shared by design and an admin token's alone (docs/suppressions.md).
    {
      name: 'list global suppressions',
      method: 'get',
      path: () => '/api/v1/global_suppressions.json',
      permission: 'suppressions_read',
      stranger: { status: 403, error: GLOBAL },
    },
    {
      name: 'add global suppression',
      method: 'post',
      path: () => '/api/v1/global_suppressions.json',
      permission: 'global_suppressions_write',
      body: () => ({ email: 'global@example.com' }),
      stranger: { status: 403, error: GLOBAL },
    },
    {
      name: 'remove global suppression',
      method: 'delete',
      path: () => '/api/v1/global_suppressions.json',
      permission: 'global_suppressions_write',
      body: () => ({ email: 'global@example.com' }),
      stranger: { status: 403, error: GLOBAL },
    },
    {
      name: 'bulk add global suppressions',
      method: 'post',
      path: () => '/api/v1/global_suppressions/bulk.json',
      permission: 'global_suppressions_write',
      body: () => ({ emails: ['global@example.com'] }),
      stranger: { status: 403, error: GLOBAL },
    },
    {
      name: 'bulk remove global suppressions',
      method: 'delete',
      path: () => '/api/v1/global_suppressions/bulk.json',
      permission: 'global_suppressions_write',
      body: () => ({ emails: ['global@example.com'] }),
      stranger: { status: 403, error: GLOBAL },
    },
    // The users are the installation's, an admin token's alone (docs/teams.md, "Users API").
    {
      name: 'list users',
      method: 'get',
      path: () => '/api/v1/users',
      permission: 'users_read',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'create user',
      method: 'post',
      path: () => '/api/v1/users',
      permission: 'users_write',
      body: () => ({ email: 'new-user@example.com', password: 'a long password here' }),
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'get user',
      method: 'get',
      path: () => '/api/v1/users/1',
      permission: 'users_read',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'update user',
      method: 'patch',
      path: () => '/api/v1/users/1',
      permission: 'users_write',
      body: () => ({ first_name: 'X' }),
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'delete user',
      method: 'delete',
      path: () => '/api/v1/users/1',
      permission: 'users_write',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'deactivate user',
      method: 'post',
      path: () => '/api/v1/users/1/deactivate',
      permission: 'users_write',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'activate user',
      method: 'post',
      path: () => '/api/v1/users/1/activate',
      permission: 'users_write',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'list user channel permissions',
      method: 'get',
      path: () => '/api/v1/users/1/channel_permissions',
      permission: 'users_read',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'set user channel permission',
      method: 'put',
      path: () => '/api/v1/users/1/channel_permissions/1',
      permission: 'users_write',
      body: () => ({ role: 'Manager' }),
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'remove user channel permission',
      method: 'delete',
      path: () => '/api/v1/users/1/channel_permissions/1',
      permission: 'users_write',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'bulk set user channel permissions',
      method: 'post',
      path: () => '/api/v1/users/1/channel_permissions/bulk',
      permission: 'users_write',
      body: () => ({ broadcast_channel_ids: [1], role: 'Manager' }),
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'get user system permissions',
      method: 'get',
      path: () => '/api/v1/users/1/system_permissions',
      permission: 'users_read',
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'change user system permissions',
      method: 'patch',
      path: () => '/api/v1/users/1/system_permissions',
      permission: 'users_write',
      body: () => ({ permissions: { user_management: true } }),
      stranger: { status: 403, error: USERS },
    },
    {
      name: 'list the audit log',
      method: 'get',
      path: () => '/api/v1/audit_log',
      permission: 'audit_log_read',
      stranger: { status: 403, error: 'Admin API token required for the audit log' },
    },
  ];

  const call = (op: Operation, token?: string) => {
    let req = request(api.app)[op.method](op.path());
    if (token !== undefined) req = req.set('Authorization', `Bearer ${token}`);
    return op.body === undefined ? req : req.send(op.body());
  };

  /** What the first channel owns, read straight from PostgreSQL: nothing here may change. */
  const snapshot = async () => ({
    broadcasts: await api.database.db('broadcasts').orderBy('id').select('id', 'name', 'status', 'version'),
    subscribers: await api.database.db('subscribers').orderBy('id').select('id', 'email', 'first_name', 'is_active', 'tags'),
    endpoints: await api.database.db('webhook_endpoints').orderBy('id').select('id', 'description', 'active'),
    servers: await api.database.db('email_servers').orderBy('id').select('id', 'name', 'dkim_private_key'),
    suppressions: await api.database.db('suppressions').where({ channel_id: ownerChannel }).orderBy('email').select('email'),
    sequences: await api.database.db('sequences').where({ channel_id: ownerChannel }).orderBy('id').select('id', 'label', 'active'),
    steps: await api.database.db('sequence_steps').orderBy('id').select('id', 'sequence_id', 'parent_id', 'settings'),
    enrolments: await api.database.db('subscriber_sequences').where({ channel_id: ownerChannel }).orderBy('id').select('id', 'status'),
    forms: await api.database.db('opt_in_forms').where({ channel_id: ownerChannel }).orderBy('id').select('id', 'label', 'parent_form_id', 'updated_at'),
  });

  /**
   * The discovery calls need no permission (whoami and status answer any valid token about its own
   * channel; the documents need none): discovery.int.test.ts covers their 401s and their channel.
   */
  const WITHOUT_PERMISSION = new Set(['/api/v1/openapi.json', '/api/v1/openapi', '/api/v1/whoami', '/api/v1/status', '/api/v1/prime', '/api/v1/skill']);

  it('covers every documented operation of the API', async () => {
    const res = await request(api.app).get('/api/v1/openapi.json');
    const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/api/v1/') && !WITHOUT_PERMISSION.has(path))
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))
          .map((m) => `${m} ${path}`),
      );
    const covered = OPERATIONS.map(
      (op) =>
        `${op.method} ${op
          .path()
          .split('?')[0]!
          .replace(/\/channel_permissions\/\d+$/, '/channel_permissions/{broadcast_channel_id}')
          .replace(/\/\d+(?=\/|\.json$|$)/, '/{id}')
          .replace(/\/\d+(?=\/|$)/, '/{step_id}')}`,
    );
    expect([...new Set(covered)].sort()).toEqual([...new Set(documented)].sort());
  });

  describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    it('answers 401 without a token and with a token lacking its permission', async () => {
      const none = await call(op);
      expect([none.status, none.body]).toEqual([401, { error: 'Unauthorized' }]);
      const others = PERMISSIONS.filter((p) => p !== op.permission);
      const lacking =
        op.stranger.status === 403 ? await api.fixtures.anAdminToken(others) : await api.fixtures.aToken((await api.fixtures.aChannel()).id, others);
      const owned = await api.fixtures.aToken(ownerChannel, others);
      for (const token of op.stranger.status === 403 ? [lacking] : [lacking, owned]) {
        const res = await call(op, token);
        expect([res.status, res.body]).toEqual([401, { error: 'Unauthorized' }]);
      }
    });

    it("treats the other channel's resources as nonexistent", async () => {
      const before = await snapshot();
      const res = await call(op, stranger);
      if (op.stranger.status === 404 || op.stranger.status === 403) {
        expect([res.status, res.body]).toEqual([op.stranger.status, { error: op.stranger.error }]);
      } else {
        expect(res.status).toBeLessThan(300);
        if (op.method === 'get') expect(op.stranger.empty(res.body)).toBe(0);
      }
      const after = await snapshot();
      // The stranger may create in its own channel; nothing that existed before changed.
      expect(after.broadcasts.slice(0, before.broadcasts.length)).toEqual(before.broadcasts);
      expect(after.subscribers.slice(0, before.subscribers.length)).toEqual(before.subscribers);
      expect(after.endpoints.slice(0, before.endpoints.length)).toEqual(before.endpoints);
      expect(after.servers.slice(0, before.servers.length)).toEqual(before.servers);
      expect(after.suppressions).toEqual(before.suppressions);
      expect(after.sequences).toEqual(before.sequences);
      expect(after.steps.slice(0, before.steps.length)).toEqual(before.steps);
      expect(after.enrolments).toEqual(before.enrolments);
      expect(after.forms).toEqual(before.forms);
    });
  });
});
