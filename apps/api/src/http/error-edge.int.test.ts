import { Repositories, type Repositories as RepositoriesPort } from '@mailcast/core';
import { formatConfirmationToken, trackingToken } from '@mailcast/domain';
import { cutOffDatabase, eventually } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { startApi, useApi, type ApiHarness } from '../test-support/harness';

describe('the HTTP error edge (spec: Errors; docs/api-decisions.md HTTP)', () => {
  const api = useApi();
  let token: string;

  beforeAll(async () => {
    token = (await api.fixtures.aTenant()).token;
  });

  it('answers malformed JSON with 400 {"error": "Invalid JSON"}', async () => {
    const res = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{"broadcast": {"subject": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid JSON' });
  });

  it('answers a JSON body that is not an object or array with 400', async () => {
    const res = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('"just a string"');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid JSON' });
  });

  it('answers a body over 1 MB with 413 {error}', async () => {
    const res = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ broadcast: { body: 'x'.repeat(1_100_000) } }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });

  it('answers custom_data nested 100,000 levels deep with 422, and stores nothing (docs/security.md)', async () => {
    const depth = 100_000;
    const body = `{"email":"deep@example.test","custom_data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const before = Number((await api.database.db('subscribers').count({ n: '*' }).first())?.n);
    const res = await request(api.app)
      .post('/api/v1/subscribers.json')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'Request body is nested more than 32 levels deep' });
    expect(Number((await api.database.db('subscribers').count({ n: '*' }).first())?.n)).toBe(before);
    const arrays = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(`{"broadcast":{"subject":"S","tags":${'['.repeat(depth)}${']'.repeat(depth)}}}`);
    expect(arrays.status).toBe(422);
  });

  it('accepts custom_data nested 31 levels deep (the limit counts the body object as one)', async () => {
    const res = await request(api.app)
      .post('/api/v1/subscribers.json')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(`{"email":"nested@example.test","custom_data":${'{"a":'.repeat(31)}1${'}'.repeat(31)}}`);
    expect(res.status).toBe(201);
  });

  it('answers an unknown route with 404 {"error": "Not found"}', async () => {
    for (const path of ['/api/v1/nothing-here', '/api/v1/broadcasts/1/nope']) {
      const res = await request(api.app).get(path).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Not found' });
    }
    const outside = await request(api.app).get('/not-the-api');
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({ error: 'Not found' });
  });

  it('logs one line per request at the default level, with method, path, status and time', async () => {
    await request(api.app).get('/api/v1/broadcasts?limit=3&email=someone%40example.com').set('Authorization', `Bearer ${token}`);
    // Written on the response's 'finish', which may come just after the client has the answer.
    const line = await eventually(async () =>
      api.logs.find((e) => {
        const http = e.http as { method?: string; path?: string; status?: number } | undefined;
        return http?.method === 'GET' && http.path === '/api/v1/broadcasts' && http.status === 200;
      }),
    );
    expect(line).toMatchObject({
      level: 'info',
      http: { method: 'GET', path: '/api/v1/broadcasts', status: 200, durationMs: expect.any(Number) },
    });
    expect(line!.message).toMatch(/^GET \/api\/v1\/broadcasts 200 \d+\.\dms$/);
    expect(JSON.stringify(line)).not.toContain('someone');
  });

  it('answers with JSON content type on errors', async () => {
    const res = await request(api.app).get('/api/v1/broadcasts');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  describe('an unexpected failure', () => {
    let failing: ApiHarness;
    beforeAll(async () => {
      // A repository that breaks like a driver would: the edge must not leak its message.
      const broken = new Error('connection terminated: secret-host-detail at /srv/app/x.js:1:1');
      const explode = () => Promise.reject(broken);
      failing = await startApi({
        overrides: [
          {
            token: Repositories,
            value: new Proxy({} as RepositoriesPort, {
              get: () => new Proxy({}, { get: () => explode }),
            }),
          },
        ],
      });
    });
    afterAll(() => failing.close());

    it('is a 500 with an id and no detail, and is logged under that id', async () => {
      const res = await request(failing.app).get('/api/v1/broadcasts').set('Authorization', 'Bearer mc_whatever');
      expect(res.status).toBe(500);
      expect(res.body.error).toMatch(/^Internal server error \(id [0-9a-f-]{36}\)$/);
      expect(JSON.stringify(res.body)).not.toMatch(/secret-host-detail|\.js:\d|stack/);
      const id = /id ([0-9a-f-]{36})/.exec(res.body.error)?.[1];
      const logged = failing.logs.find((entry) => entry.errorId === id);
      expect(logged).toMatchObject({ level: 'error', method: 'GET', path: '/api/v1/broadcasts' });
      expect(JSON.stringify(logged)).toContain('secret-host-detail');
    });
  });
});

describe('health (docs/operations.md Observability)', () => {
  const api = useApi();

  it('serves /healthz without authentication', async () => {
    const res = await request(api.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('serves /readyz: database reachable and migrations current', async () => {
    const res = await request(api.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: true, migrations: true } });
  });

  it('reports not ready, 503, when a migration is pending', async () => {
    const [latest] = await api.database.db('knex_migrations').orderBy('id', 'desc').limit(1);
    await api.database.db('knex_migrations').where({ id: latest.id }).delete();
    try {
      const res = await request(api.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'not_ready', checks: { database: true, migrations: false } });
    } finally {
      await api.database.db('knex_migrations').insert(latest);
    }
  });
});

describe('while PostgreSQL is out of reach (docs/api-decisions.md, "Database outages")', () => {
  // The documented answer, word for word (also in the OpenAPI document).
  const UNAVAILABLE = 'Service unavailable: the database cannot be reached, try again shortly';
  const api = useApi();

  it('answers 503 with Retry-After, logs a warning without a stack, and serves again once it is back', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    const auth = { Authorization: `Bearer ${token}` };
    expect((await request(api.app).get('/api/v1/subscribers.json').set(auth)).status).toBe(200);
    // A token the api has not seen yet can only be checked in the database: that is no 401.
    const unseen = { Authorization: `Bearer ${await api.fixtures.aToken(channel.id)}` };
    const logged = api.logs.length;

    const restore = await cutOffDatabase(api.database.name);
    try {
      const answers = [
        await request(api.app).get('/api/v1/subscribers.json').set(auth),
        await request(api.app)
          .post('/api/v1/subscribers.json')
          .set(auth)
          .send({ subscriber: { email: 'during@example.com' } }),
        await request(api.app).get('/api/v1/broadcasts').set(auth),
        await request(api.app).get('/api/v1/subscribers.json').set(unseen),
      ];
      for (const res of answers) {
        expect([res.status, res.headers['retry-after'], res.body]).toEqual([503, '5', { error: UNAVAILABLE }]);
      }
      const during = api.logs.slice(logged);
      expect(during.filter((e) => e.message === 'database unavailable')).toHaveLength(answers.length);
      expect(during.filter((e) => e.message === 'unhandled error')).toEqual([]);
      expect(JSON.stringify(during.filter((e) => e.message === 'database unavailable'))).not.toContain('    at ');
    } finally {
      await restore();
    }

    const created = await request(api.app)
      .post('/api/v1/subscribers.json')
      .set(auth)
      .send({ subscriber: { email: 'after@example.com' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'after@example.com' });
    expect(await api.database.db('subscribers').where({ email: 'during@example.com' }).first()).toBeUndefined();
  });
  it('answers the links people open from an email with a page, the API with JSON, both 503 with Retry-After', async () => {
    // Tokens of the right shape, so that each route asks the database about them.
    const tracking = trackingToken(randomBytes(32), 1);
    const confirmation = formatConfirmationToken(randomBytes(32));
    const restore = await cutOffDatabase(api.database.name);
    try {
      for (const path of [`/u/${tracking}`, `/confirm/${confirmation}`, `/t/c/${tracking}/1`]) {
        const res = await request(api.app).get(path);
        expect([path, res.status, res.headers['retry-after'], res.headers['content-type']]).toEqual([path, 503, '5', 'text/html; charset=utf-8']);
        expect(res.text).toContain('<h1>Try again in a moment</h1>');
        expect(res.text).not.toContain('database');
      }
      // The one-click unsubscribe a mail provider POSTs gets the same status to retry on.
      expect((await request(api.app).post(`/u/${tracking}`)).status).toBe(503);
      // The open pixel is an image request: the status is what counts, the body stays JSON.
      const pixel = await request(api.app).get(`/t/o/${tracking}`);
      expect([pixel.status, pixel.body]).toEqual([503, { error: UNAVAILABLE }]);
    } finally {
      await restore();
    }
  });
});
