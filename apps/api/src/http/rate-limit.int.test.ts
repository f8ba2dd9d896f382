import { Clock } from '@mailcast/core';
import request from 'supertest';
import { startApi, type ApiHarness } from '../test-support/harness';
import { createApp } from './app';

class SettableClock {
  constructor(public current: Date) {}
  now(): Date {
    return this.current;
  }
}

describe('rate limit per token (docs/auth.md RATE_LIMIT_PER_MINUTE, §2 headers)', () => {
  const clock = new SettableClock(new Date('2026-11-22T10:15:42.100Z'));
  let api: ApiHarness;
  let token: string;
  let other: string;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '3' }, overrides: [{ token: Clock, value: clock }] });
    token = (await api.fixtures.aTenant()).token;
    other = (await api.fixtures.aTenant()).token;
  });
  afterAll(() => api.close());

  const list = (app = api.app, bearer = token) => request(app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${bearer}`);

  it('counts requests in a fixed window, then answers 429 with Retry-After and the same headers', async () => {
    for (const remaining of ['2', '1', '0']) {
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe(remaining);
      expect(res.headers['x-ratelimit-reset']).toBe('2026-11-22T10:16:00.000Z');
    }
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded' });
    expect(refused.headers['retry-after']).toBe('18');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe('2026-11-22T10:16:00.000Z');
  });

  it('puts the headers on authenticated error answers too (docs/api-decisions.md: every API response)', async () => {
    const fresh = await api.fixtures.aToken((await api.fixtures.aChannel()).id);
    const missing = await request(api.app).get('/api/v1/broadcasts/999999').set('Authorization', `Bearer ${fresh}`);
    expect(missing.status).toBe(404);
    expect(missing.headers['x-ratelimit-remaining']).toBe('2');
    const invalid = await request(api.app).get('/api/v1/broadcasts?limit=-1').set('Authorization', `Bearer ${fresh}`);
    expect(invalid.status).toBe(422);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('1');
    const unknown = await request(api.app).get('/api/v1/nothing').set('Authorization', `Bearer ${fresh}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('keeps each token to its own count', async () => {
    const res = await list(api.app, other);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
  });

  it('holds across api instances sharing the database (replicas)', async () => {
    const replica = createApp(api.container);
    expect((await list(replica)).status).toBe(429);
  });

  it('starts afresh when the window rolls over', async () => {
    clock.current = new Date('2026-11-22T10:16:00.000Z');
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('2');
    expect(res.headers['x-ratelimit-reset']).toBe('2026-11-22T10:17:00.000Z');
  });

  it('admits exactly the limit under concurrent requests', async () => {
    clock.current = new Date('2026-11-22T10:30:00.000Z');
    const fresh = await api.fixtures.aToken((await api.fixtures.aChannel()).id);
    const statuses = (await Promise.all(Array.from({ length: 12 }, () => list(api.app, fresh)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });

  it('does not count unauthenticated requests against anyone', async () => {
    const res = await request(api.app).get('/api/v1/broadcasts');
    expect(res.status).toBe(401);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

describe('rate limit off (RATE_LIMIT_PER_MINUTE=0) and default', () => {
  it('sets no headers and refuses nothing when 0', async () => {
    const api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    try {
      const token = (await api.fixtures.aTenant()).token;
      for (let i = 0; i < 5; i++) {
        const res = await request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await api.close();
    }
  });

  it('defaults to 1200 per minute', async () => {
    const api = await startApi();
    try {
      const token = (await api.fixtures.aTenant()).token;
      const res = await request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`);
      expect(res.headers['x-ratelimit-limit']).toBe('1200');
      expect(res.headers['x-ratelimit-remaining']).toBe('1199');
    } finally {
      await api.close();
    }
  });
});
