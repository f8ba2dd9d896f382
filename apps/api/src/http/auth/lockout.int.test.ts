import { Clock } from '@mailcast/core';
import { testClock } from '@mailcast/testkit';
import request from 'supertest';
import { useApi } from '../../test-support/harness';
import { aUser } from '../../test-support/users';

const MINUTE = 60_000;

/**
 * CONTRACT §4.5b, lockout: 10 failures of one account within 15 minutes lock it for 15 minutes
 * (the same 401 as any failure, `locked: true` on the user), `activate` clears it; and failures
 * per client address: 429 with Retry-After past 20 in 15 minutes. Only the clock is moved.
 */
jest.setTimeout(120_000);

describe('lockout of one account', () => {
  const time = testClock(Date.parse('2026-12-01T10:00:00Z'));
  // Each test signs in from its own address (through a trusted proxy), so the per-address limit
  // below stays out of the way of the per-account one.
  const api = useApi({ overrides: [{ token: Clock, value: time.clock }], env: { RATE_LIMIT_PER_MINUTE: '0', TRUSTED_PROXIES: 'loopback' } });
  let address = 0;
  beforeEach(() => void (address += 1));
  const attempt = (email: string, password: string) =>
    request(api.app).post('/auth/sign_in').set('X-Forwarded-For', `10.0.0.${address}`).send({ email, password });
  const fail = async (email: string, times: number) => {
    for (let i = 0; i < times; i++) expect((await attempt(email, `wrong password ${i}`)).status).toBe(401);
  };
  const lockedOf = async (id: number, admin: string) =>
    (await request(api.app).get(`/api/v1/users/${id}`).set('Authorization', `Bearer ${admin}`)).body.locked as boolean;

  it('locks after 10 failures within 15 minutes: the right password then gets the same 401, until 15 minutes pass', async () => {
    const admin = await api.fixtures.anAdminToken();
    const user = await aUser(api);
    await fail(user.email, 9);
    time.advance(MINUTE);
    expect(await lockedOf(user.id, admin)).toBe(false);
    await fail(user.email, 1);
    expect(await lockedOf(user.id, admin)).toBe(true);
    const locked = await attempt(user.email, user.password);
    expect(locked.status).toBe(401);
    expect(locked.body).toEqual({ error: 'Invalid email or password' });
    // Failures while locked are not counted: the lock still ends 15 minutes after it began.
    await fail(user.email, 3);
    time.advance(14 * MINUTE);
    expect((await attempt(user.email, user.password)).status).toBe(401);
    time.advance(MINUTE + 1000);
    expect(await lockedOf(user.id, admin)).toBe(false);
    expect((await attempt(user.email, user.password)).status).toBe(200);
  });

  it('counts only the last 15 minutes: 9 failures, 16 minutes, 9 more do not lock', async () => {
    const user = await aUser(api);
    await fail(user.email, 9);
    time.advance(16 * MINUTE);
    await fail(user.email, 9);
    expect((await attempt(user.email, user.password)).status).toBe(200);
  });

  it('a successful sign-in forgets the failures before it', async () => {
    const user = await aUser(api);
    await fail(user.email, 9);
    expect((await attempt(user.email, user.password)).status).toBe(200);
    await fail(user.email, 9);
    expect((await attempt(user.email, user.password)).status).toBe(200);
  });

  it('activate clears a lockout at once', async () => {
    const admin = await api.fixtures.anAdminToken();
    const user = await aUser(api);
    await fail(user.email, 10);
    expect((await attempt(user.email, user.password)).status).toBe(401);
    const activated = await request(api.app).post(`/api/v1/users/${user.id}/activate`).set('Authorization', `Bearer ${admin}`);
    expect(activated.status).toBe(200);
    expect(activated.body.locked).toBe(false);
    expect((await attempt(user.email, user.password)).status).toBe(200);
  });
});

describe('failed sign-ins per client address', () => {
  const time = testClock(Date.parse('2026-12-01T10:00:00Z'));
  const api = useApi({ overrides: [{ token: Clock, value: time.clock }] });

  it('answers 429 with Retry-After past 20 failures in 15 minutes, the right password included, then lets the address in again', async () => {
    const user = await aUser(api);
    for (let i = 0; i < 20; i++) {
      // Different unknown addresses: no account is locked, only the address counts.
      const res = await request(api.app)
        .post('/auth/sign_in')
        .send({ email: `nobody${i}@example.com`, password: 'whatever password' });
      expect(res.status).toBe(401);
    }
    const limited = await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Rate limit exceeded' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    time.advance(retryAfter * 1000);
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password })).status).toBe(200);
  });
});
