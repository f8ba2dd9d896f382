import fc from 'fast-check';
import request from 'supertest';
import { startApi, type ApiHarness } from '../test-support/harness';

/**
 * Issue 8, fuzzing: random and hostile input to every endpoint. No answer is a 500, none leaks a
 * stack trace or a driver message, every error has the spec's shape, and what is stored comes
 * back exactly as sent.
 */

// Hostile strings beside random ones: SQL and Liquid injection, path traversal, markup, NUL,
// lone surrogates, huge strings and every Unicode plane.
const HOSTILE = fc.constantFrom(
  "'; DROP TABLE subscribers; --",
  "' OR '1'='1",
  '{{ 7 | times: 7 }}',
  '{% for i in (1..100000000) %}x{% endfor %}',
  '{% include "/etc/passwd" %}',
  '{{ subscriber.constructor.constructor }}',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '<script>alert(1)</script>',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '__proto__',
  'constructor',
  '%s%s%s%n',
  '${7*7}',
  'x'.repeat(100_000),
  '😀'.repeat(1_000),
  '\r\nBcc: victim@example.com',
);
const TEXT = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary', maxLength: 50 }), HOSTILE);
const SCALAR = fc.oneof(TEXT, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const VALUE: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, SCALAR, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(TEXT, tie('value'), { maxKeys: 4 })),
})).value;

/** What a URL can carry: encodeURIComponent refuses lone surrogates (they have no UTF-8 form). */
const URL_TEXT = TEXT.filter((s) => {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
});

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

describe('fuzzing every endpoint', () => {
  let api: ApiHarness;
  let token: string;
  let ids: { broadcast: number; endpoint: number };

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '0' } });
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    ids = {
      broadcast: (await api.fixtures.aBroadcast(tenant.channel.id)).id,
      endpoint: (
        await request(api.app)
          .post('/api/v1/webhook_endpoints')
          .set('Authorization', `Bearer ${token}`)
          .send({ webhook_endpoint: { url: 'https://hooks.example.com/in', event_types: ['subscriber.created'] } })
      ).body.id,
    };
    await request(api.app)
      .post('/api/v1/subscribers.json')
      .set('Authorization', `Bearer ${token}`)
      .send({ subscriber: { email: 'known@example.com' } });
  });
  afterAll(() => api.close());

  /** The properties every answer must have, whatever was sent. */
  function expectWellFormed(res: request.Response): void {
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|syntax error at|violates|duplicate key|invalid input syntax/);
    if (res.status >= 400 && res.type === 'application/json') {
      const body = res.body as { error?: unknown; errors?: unknown };
      const shaped =
        typeof body.error === 'string' ||
        (typeof body.errors === 'object' &&
          body.errors !== null &&
          Object.values(body.errors).every((m) => Array.isArray(m) && m.every((s) => typeof s === 'string')));
      expect(shaped).toBe(true);
    }
  }

  type Method = 'post' | 'patch' | 'delete' | 'get';
  const WITH_BODY: Array<[Method, () => string, string]> = [
    ['post', () => '/api/v1/broadcasts', 'broadcast'],
    ['patch', () => `/api/v1/broadcasts/${ids.broadcast}`, 'broadcast'],
    ['post', () => `/api/v1/broadcasts/${ids.broadcast}/schedule_broadcast`, 'broadcast'],
    ['post', () => '/api/v1/subscribers.json', 'subscriber'],
    ['patch', () => '/api/v1/subscribers.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/deactivate.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/activate.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/add_tag.json', 'subscriber'],
    ['delete', () => '/api/v1/subscribers/remove_tag.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/unsubscribe.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/resubscribe.json', 'subscriber'],
    ['post', () => '/api/v1/subscribers/redact.json', 'subscriber'],
    ['post', () => '/api/v1/webhook_endpoints', 'webhook_endpoint'],
    ['patch', () => `/api/v1/webhook_endpoints/${ids.endpoint}`, 'webhook_endpoint'],
    ['post', () => `/api/v1/webhook_endpoints/${ids.endpoint}/test`, 'webhook_endpoint'],
    ['post', () => '/api/v1/templates/preview', 'template'],
  ];
  const FIELDS = fc.constantFrom(
    'email',
    'first_name',
    'last_name',
    'tags',
    'custom_data',
    'source',
    'subscribed_at',
    'ip_address',
    'tag_list',
    'subject',
    'body',
    'html_body',
    'name',
    'reply_to',
    'segment_ids',
    'email_server_ids',
    'email_headers',
    'track_opens',
    'scheduled_send_at',
    'scheduled_timezone',
    'url',
    'event_types',
    'retries_to_attempt',
    'active',
    'event_type',
    'double_opt_in',
    'confirmation_template_id',
    'subscriber',
  );
  const fieldsBody = fc.dictionary(FIELDS, VALUE, { maxKeys: 6 });

  it.each(WITH_BODY)('%s %s: random and hostile bodies never make a 500', async (method, path, key) => {
    const body = fc.oneof(
      { weight: 3, arbitrary: fieldsBody.map((fields) => ({ [key]: fields })) },
      { weight: 2, arbitrary: fieldsBody },
      { weight: 1, arbitrary: VALUE },
    );
    await fc.assert(
      fc.asyncProperty(body, async (sent) => {
        const agent = request(api.app);
        const res = await agent[method](path())
          .set('Authorization', `Bearer ${token}`)
          .send(JSON.stringify(sent) as unknown as object)
          .type('json');
        expectWellFormed(res);
      }),
      { numRuns: RUNS },
    );
  });

  it.each([
    ['get', '/api/v1/broadcasts/'],
    ['get', '/api/v1/webhook_endpoints/'],
    ['patch', '/api/v1/broadcasts/'],
    ['delete', '/api/v1/webhook_endpoints/'],
    ['get', '/t/o/'],
    ['get', '/t/c/'],
    ['get', '/u/'],
    ['post', '/u/'],
    ['get', '/confirm/'],
  ] as Array<[Method, string]>)('%s %s<random id>: path traversal and junk ids are a 404, not a 500', async (method, prefix) => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(URL_TEXT, fc.constantFrom('..', '../..', '%2e%2e', '1 OR 1=1', '-1', '0', '1e3', '99999999999999999999', '1.5')),
        async (id) => {
          const agent = request(api.app);
          const res = await agent[method](`${prefix}${encodeURIComponent(id)}`)
            .set('Authorization', `Bearer ${token}`)
            .send({});
          expectWellFormed(res);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it.each([
    '/api/v1/broadcasts',
    '/api/v1/subscribers.json',
    '/api/v1/webhook_endpoints',
    () => `/api/v1/webhook_endpoints/${ids.endpoint}/deliveries`,
    () => `/api/v1/broadcasts/${ids.broadcast}/statistics/timeline`,
    () => `/api/v1/broadcasts/${ids.broadcast}/statistics/links`,
  ])('GET %s with random query strings never makes a 500', async (path) => {
    const name = fc.oneof(
      fc.constantFrom(
        'limit',
        'offset',
        'page',
        'email',
        'tags[]',
        'tags',
        'custom_data[plan]',
        'custom_data[a][b]',
        'is_active',
        'created_after',
        'created_before',
        'confirmation_status',
        'timeframe',
        'metrics',
        'sort',
        'order',
        'source',
      ),
      URL_TEXT,
    );
    const query = fc.array(fc.tuple(name, URL_TEXT), { maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(query, async (pairs) => {
        const qs = pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(v)}`).join('&');
        const res = await request(api.app)
          .get(`${typeof path === 'string' ? path : path()}?${qs}`)
          .set('Authorization', `Bearer ${token}`);
        expectWellFormed(res);
      }),
      { numRuns: RUNS },
    );
  });

  describe('stored values round-trip exactly', () => {
    let n = 0;
    it('subscribers: names and custom data', async () => {
      const customData = fc.dictionary(TEXT, VALUE, { maxKeys: 5 });
      await fc.assert(
        fc.asyncProperty(TEXT, TEXT, customData, async (firstName, lastName, data) => {
          const email = `fuzz${++n}@example.com`;
          const created = await request(api.app)
            .post('/api/v1/subscribers.json')
            .set('Authorization', `Bearer ${token}`)
            .send({ subscriber: { email, first_name: firstName, last_name: lastName, custom_data: data } });
          expectWellFormed(created);
          if (created.status !== 201) {
            // Refused input is refused whole: nothing was stored.
            expect(created.status).toBe(422);
            expect(await api.database.db('subscribers').where({ email }).first()).toBeUndefined();
            return;
          }
          const found = await request(api.app)
            .get(`/api/v1/subscribers/find.json?email=${encodeURIComponent(email)}`)
            .set('Authorization', `Bearer ${token}`);
          expect(found.status).toBe(200);
          expect({ first_name: found.body.first_name, last_name: found.body.last_name, custom_data: found.body.custom_data }).toEqual({
            first_name: firstName,
            last_name: lastName,
            custom_data: JSON.parse(JSON.stringify(data)),
          });
        }),
        { numRuns: RUNS * 2 },
      );
    });

    it('broadcasts: name, subject, preheader and body', async () => {
      await fc.assert(
        fc.asyncProperty(
          TEXT,
          TEXT.filter((s) => s.trim() !== ''),
          TEXT,
          TEXT,
          async (name, subject, preheader, body) => {
            const created = await request(api.app)
              .post('/api/v1/broadcasts')
              .set('Authorization', `Bearer ${token}`)
              .send({ broadcast: { name, subject, preheader, body } });
            expectWellFormed(created);
            if (created.status !== 201) {
              expect(created.status).toBe(422);
              return;
            }
            const got = await request(api.app).get(`/api/v1/broadcasts/${created.body.id}`).set('Authorization', `Bearer ${token}`);
            expect({ name: got.body.name, subject: got.body.subject, preheader: got.body.preheader, body: got.body.body }).toEqual({
              name,
              subject,
              preheader,
              body,
            });
          },
        ),
        { numRuns: RUNS * 2 },
      );
    });
  });

  it('never writes a token or a webhook secret into the logs', async () => {
    const created = await request(api.app)
      .post('/api/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${token}`)
      .send({ webhook_endpoint: { url: 'https://hooks.example.com/secret', event_types: ['test.webhook'] } });
    expect(created.status).toBe(201);
    // Public links carry capabilities in their paths: logged as :token.
    const capability = '42-SECRETCAPABILITYTOKEN1';
    for (const path of [`/t/o/${capability}`, `/t/c/${capability}/abcdefabcdef`, `/u/${capability}`, `/confirm/${capability}`]) {
      await request(api.app).get(path);
    }
    const logs = JSON.stringify(api.logs);
    expect(logs).toContain('/t/c/:token/abcdefabcdef');
    expect(logs).not.toContain('SECRETCAPABILITYTOKEN1');
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(created.body.secret);
    expect(logs).not.toMatch(/mc_[A-Za-z0-9_-]{43}/);
  });
});
