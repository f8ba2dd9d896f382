import { PERMISSIONS } from '@mailcast/domain';
import express from 'express';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import request from 'supertest';
import { startApi, type ApiHarness } from '../test-support/harness';
import { OPENAPI_DOCUMENT } from './document';
import { DocumentMatcher, documentedOperations, expectResponseMatchesDocument, HTTP_METHODS, registeredRoutes } from './test-support/match-document';

const ROOT = path.resolve(__dirname, '../../../..');
type Json = Record<string, any>;
const doc = OPENAPI_DOCUMENT as Json;

describe('the OpenAPI document is valid OpenAPI 3.1', () => {
  it('passes a maintained OpenAPI validator (@seriousme/openapi-schema-validator, official 3.1 schema)', () => {
    // The validator is ESM-only; it runs in a child Node process, which loads ESM natively.
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const chunks = [];
      for await (const chunk of process.stdin) chunks.push(chunk);
      const validator = new Validator();
      const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      input: JSON.stringify(doc),
      encoding: 'utf8',
    });
    const result = JSON.parse(out);
    expect(result.errors ?? []).toEqual([]);
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('rejects a broken document through the same validator (the check can fail)', () => {
    const broken = { ...doc, paths: { '/x': { get: { responses: { '200': { content: 'nope' } } } } } };
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const chunks = [];
      for await (const chunk of process.stdin) chunks.push(chunk);
      const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      process.stdout.write(JSON.stringify({ valid: result.valid }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input: JSON.stringify(broken), encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ valid: false });
  });

  it('compiles every component schema under strict JSON Schema 2020-12 (refs resolve, no unknown keyword)', () => {
    const names = new DocumentMatcher().compileAll();
    expect(names).toEqual(expect.arrayContaining(['Broadcast', 'Subscriber', 'WebhookEndpoint', 'WebhookDelivery', 'WebhookEvent']));
  });

  it('names a permission on every authenticated operation, and unique operation ids', () => {
    const ids: string[] = [];
    for (const [route, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of HTTP_METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        ids.push(op.operationId);
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        // The dashboard's sign-in (docs/teams.md): no token; its signed-in routes name the session cookie.
        if (route.startsWith('/auth/')) {
          expect([route, Array.isArray(op.security)]).toEqual([route, true]);
          expect(op.security.every((s: Json) => Object.keys(s).every((k) => k === 'sessionCookie'))).toBe(true);
          continue;
        }
        // The export (docs/export.md) is authenticated under its own prefix.
        const authenticatedPrefix = route.startsWith('/api/v1/') || route.startsWith('/api/migration/v1/');
        expect([route, isPublic]).toEqual([route, !authenticatedPrefix || route.startsWith('/api/v1/openapi')]);
        if (isPublic) continue;
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500', '503']));
        // The discovery calls answer any valid token; every other operation names its permission.
        if (['/api/v1/whoami', '/api/v1/status', '/api/v1/prime', '/api/v1/skill'].includes(route)) {
          expect([route, op['x-permission'], op.description]).toEqual([route, undefined, expect.stringContaining('Permission: none')]);
          continue;
        }
        expect(PERMISSIONS).toContain(op['x-permission']);
        expect(op.description).toContain(`Permission: \`${op['x-permission']}\`.`);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500', '503']));
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses the spec permission names for webhook endpoints and read/write for the others', () => {
    const permissionOf = (method: string, route: string) => doc.paths[route][method]['x-permission'];
    expect(permissionOf('get', '/api/v1/webhook_endpoints/{id}/deliveries')).toBe('webhook_endpoints_read');
    expect(permissionOf('post', '/api/v1/webhook_endpoints/{id}/test')).toBe('webhook_endpoints_write');
    expect(permissionOf('get', '/api/v1/subscribers/find.json')).toBe('subscribers_read');
    expect(permissionOf('delete', '/api/v1/subscribers/remove_tag.json')).toBe('subscribers_write');
    expect(permissionOf('get', '/api/v1/broadcasts/{id}/statistics/links')).toBe('broadcasts_read');
    expect(permissionOf('post', '/api/v1/broadcasts/{id}/abort_broadcast')).toBe('broadcasts_write');
  });

  it('describes the webhook deliveries with the three signature headers', () => {
    const names = Object.values(doc.webhooks as Record<string, Json>).map((w) => (w.post.parameters as Json[]).map((p) => p.name));
    for (const headers of names) {
      expect(headers).toEqual(expect.arrayContaining(['broadcast-webhook-id', 'broadcast-webhook-timestamp', 'broadcast-webhook-signature']));
    }
    expect(names.length).toBeGreaterThanOrEqual(5);
  });
});

describe('route discovery (the walk the agreement rests on)', () => {
  it('finds routes of mounted routers, with parameters as OpenAPI templates', () => {
    const app = express();
    const inner = express.Router();
    inner.get('/things/:id', (_req, res) => {
      res.end();
    });
    inner.post('/things/:id/act', (_req, res) => {
      res.end();
    });
    inner.use((_req, _res, next) => next());
    const outer = express.Router();
    outer.use('/v2', inner);
    app.use('/api', outer);
    app
      .route('/top')
      .get((_req, res) => res.end())
      .delete((_req, res) => res.end());
    expect(registeredRoutes(app)).toEqual(['DELETE /top', 'GET /api/v2/things/{id}', 'GET /top', 'POST /api/v2/things/{id}/act']);
  });
});

describe('the document and the running API agree', () => {
  let api: ApiHarness;
  let token: string;
  let broadcastId: number;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '100' } });
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    broadcastId = (await api.fixtures.aBroadcast(tenant.channel.id)).id;
    await api.fixtures.aBroadcast(tenant.channel.id, {
      name: null,
      body: null,
      htmlBody: '<p>Hi</p>',
      scheduledTimezone: 'Europe/Berlin',
      scheduledSendAt: new Date('2030-01-01T09:00:00Z'),
    });
  });
  afterAll(() => api.close());

  const as = (bearer = token) => ({
    get: (p: string) => request(api.app).get(p).set('Authorization', `Bearer ${bearer}`),
    post: (p: string) => request(api.app).post(p).set('Authorization', `Bearer ${bearer}`),
  });

  it('documents every route the app registers, and routes every documented operation', () => {
    const routed = registeredRoutes(api.app);
    const documented = documentedOperations();
    const undocumented = routed.filter((r) => !documented.includes(r));
    const missing = documented.filter((d) => !routed.includes(d));
    expect({ undocumented, missing }).toEqual({ undocumented: [], missing: [] });
    // The walk finds routes of every kind: authenticated, public pages, probes and the docs.
    expect(routed).toEqual(
      expect.arrayContaining([
        'GET /api/v1/broadcasts/{id}',
        'DELETE /api/v1/subscribers/remove_tag.json',
        'POST /api/v1/webhook_endpoints/{id}/test',
        'POST /u/{token}',
        'GET /metrics',
        'GET /docs',
      ]),
    );
    expect(routed.length).toBe(documentedOperations().length);
  });

  it('serves the document at GET /api/v1/openapi.json without a token', async () => {
    const res = await request(api.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expectResponseMatchesDocument(res);
  });

  it('serves the interactive docs at GET /docs from local assets, with a strict content security policy', async () => {
    const page = await request(api.app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expectResponseMatchesDocument(page);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self';");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // Nothing is loaded from another origin: every src/href is a path on this server.
    const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      expect(ref.startsWith('/docs/')).toBe(true);
      const asset = await request(api.app).get(ref);
      expect([ref, asset.status]).toEqual([ref, 200]);
    }
    const init = await request(api.app).get('/docs/mailcast-docs.js');
    expect(init.text).toContain("url: '/api/v1/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
    // The package's demo page and everything else under /docs stay unserved.
    expect((await request(api.app).get('/docs/index.html')).status).toBe(404);
    expect((await request(api.app).get('/docs/swagger-initializer.js')).status).toBe(404);
  });

  it('answers list and get of broadcasts as documented, rate-limit headers included', async () => {
    const list = await as().get('/api/v1/broadcasts?limit=10');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.headers['x-ratelimit-limit']).toBe('100');
    expectResponseMatchesDocument(list);
    for (const item of list.body.data) {
      const one = await as().get(`/api/v1/broadcasts/${item.id}`);
      expect(one.status).toBe(200);
      expectResponseMatchesDocument(one);
    }
  });

  it('answers the documented errors in the documented shapes', async () => {
    const cases = [
      await request(api.app).get('/api/v1/broadcasts'), // 401, no token
      await as('mc_not-a-token').get(`/api/v1/broadcasts/${broadcastId}`), // 401, unknown token
      await as().get('/api/v1/broadcasts/999999999'), // 404
      await as().get('/api/v1/broadcasts?limit=-1'), // 422
      await as().post('/api/v1/broadcasts').set('Content-Type', 'application/json').send('{"broadcast": '), // 400
      await as()
        .post('/api/v1/broadcasts')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ broadcast: { body: 'x'.repeat(1_100_000) } })), // 413
    ];
    expect(cases.map((r) => r.status)).toEqual([401, 401, 404, 422, 400, 413]);
    expect(cases[0]!.body).toEqual({ error: 'Unauthorized' });
    for (const res of cases) expectResponseMatchesDocument(res);
  });

  it('answers 429 with Retry-After and the X-RateLimit-* headers as documented', async () => {
    const limited = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      const bearer = (await limited.fixtures.aTenant()).token;
      const first = await request(limited.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${bearer}`);
      const second = await request(limited.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${bearer}`);
      expect([first.status, second.status]).toEqual([200, 429]);
      expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectResponseMatchesDocument(first);
      expectResponseMatchesDocument(second);
    } finally {
      await limited.close();
    }
  });

  it('answers health and readiness as documented', async () => {
    for (const p of ['/healthz', '/readyz']) {
      const res = await request(api.app).get(p);
      expect(res.status).toBe(200);
      expectResponseMatchesDocument(res);
    }
  });
});

describe('expectMatchesDocument fails on answers the document does not promise', () => {
  const matcher = new DocumentMatcher();
  const broadcast = {
    id: 1,
    name: 'n',
    subject: 's',
    preheader: null,
    body: 'b',
    html_body: null,
    include_unsubscribe_link: true,
    reply_to: null,
    status: 'draft',
    track_opens: true,
    track_clicks: true,
    total_recipients: 0,
    broadcast_recipients_count: 0,
    percentage_complete: 0,
    scheduled_send_at: null,
    scheduled_timezone: null,
    sent_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    tags: [],
    segment_ids: [],
    topic_id: null,
    excluded_segment_ids: [],
    template_id: null,
    email_server_ids: [],
    use_any_email_server: false,
    email_headers: [],
    archive: false,
    send_in_subscriber_timezone: false,
    pause_reason: null,
    ab_test: null,
  };

  it('accepts a conforming body', () => {
    expect(matcher.check('GET', '/api/v1/broadcasts/1', 200, broadcast)).toEqual([]);
  });

  it.each([
    ['a missing field', { ...broadcast, status: undefined }],
    ['an undocumented field', { ...broadcast, secret_field: 1 }],
    ['a wrong type', { ...broadcast, id: '1' }],
    ['an unknown status', { ...broadcast, status: 'exploded' }],
    ['a malformed date', { ...broadcast, created_at: 'yesterday' }],
  ])('refuses %s', (_what, body) => {
    expect(matcher.check('GET', '/api/v1/broadcasts/1', 200, JSON.parse(JSON.stringify(body)))).toHaveLength(1);
  });

  it('refuses an undocumented status, path or method, and a missing Retry-After', () => {
    expect(matcher.check('GET', '/api/v1/broadcasts/1', 418, {})[0]).toMatch(/status not documented/);
    expect(() => matcher.check('GET', '/api/v1/nowhere', 200, {})).toThrow(/no documented path/);
    expect(() => matcher.check('PUT', '/api/v1/broadcasts/1', 200, {})).toThrow(/method is not documented/);
    expect(matcher.check('GET', '/api/v1/broadcasts', 429, { error: 'Rate limit exceeded' })).toEqual([
      'GET /api/v1/broadcasts → 429: required header Retry-After missing',
    ]);
    expect(matcher.check('GET', '/api/v1/broadcasts', 401, { error: 'Nope' })).toHaveLength(1);
  });

  it('matches literal paths before templated ones', () => {
    expect(matcher.templateOf('/api/v1/subscribers/find.json?email=a%40b.c')).toBe('/api/v1/subscribers/find.json');
    expect(matcher.templateOf('/api/v1/broadcasts/12/statistics/links')).toBe('/api/v1/broadcasts/{id}/statistics/links');
  });
});
