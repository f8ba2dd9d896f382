import { Clock } from '@mailcast/core';
import { testClock } from '@mailcast/testkit';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';
import { aUser, sessionCookieOf, signIn, type SignedInSession } from '../../test-support/users';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** CONTRACT §4.5b: sessions (fixation, listing, revoking, 12 h idle expiry) and password change. */
jest.setTimeout(120_000);

describe('dashboard sessions', () => {
  const time = testClock(Date.parse('2026-12-01T08:00:00Z'));
  const api = useApi({ overrides: [{ token: Clock, value: time.clock }], env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const session = (s: SignedInSession | string) =>
    request(api.app)
      .get('/auth/session')
      .set('Cookie', typeof s === 'string' ? s : s.cookie);

  it('never adopts a cookie value the client sent: sign-in always issues a new one, and sign-out kills the old one', async () => {
    const user = await aUser(api);
    const invented = 'C'.repeat(43);
    const planted = await request(api.app)
      .post('/auth/sign_in')
      .set('Cookie', `mailcast_session=${invented}`)
      .send({ email: user.email, password: user.password });
    expect(planted.status).toBe(200);
    const issued = sessionCookieOf(planted)!;
    expect(issued).not.toBe(invented);
    expect((await session(`mailcast_session=${invented}`)).status).toBe(401);
    // Signing in again while signed in: another new value, the first still its own session.
    const again = await request(api.app).post('/auth/sign_in').set('Cookie', `mailcast_session=${issued}`).send({ email: user.email, password: user.password });
    const second = sessionCookieOf(again)!;
    expect(second).not.toBe(issued);
    expect(await api.database.db('user_sessions').where({ user_id: user.id }).count('* as n')).toEqual([{ n: 2 }]);
    const out = await request(api.app).post('/auth/sign_out').set('Cookie', `mailcast_session=${issued}`).set('X-CSRF-Token', planted.body.csrf_token);
    expect(out.status).toBe(204);
    expect((await session(`mailcast_session=${issued}`)).status).toBe(401);
    expect((await session(`mailcast_session=${second}`)).status).toBe(200);
  });

  it('lists the user’s own live sessions, marks the current one, and revokes one of them (another user’s: 404)', async () => {
    const user = await aUser(api);
    const a = await signIn(api.app, user);
    time.advance(MINUTE);
    const b = await signIn(api.app, user);
    const stranger = await signIn(api.app, await aUser(api));
    const list = await request(api.app).get('/auth/sessions').set('Cookie', b.cookie).set('User-Agent', 'test-agent');
    expect(list.status).toBe(200);
    expectResponseMatchesDocument(list);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0]).toMatchObject({ current: true, ip: expect.any(String) });
    expect(list.body.data[1]).toMatchObject({ current: false });
    const aId = list.body.data[1].id as number;
    const strangerId = (await request(api.app).get('/auth/sessions').set('Cookie', stranger.cookie)).body.data[0].id as number;

    const foreign = await request(api.app).delete(`/auth/sessions/${strangerId}`).set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: 'Session not found' });
    expect((await session(stranger)).status).toBe(200);
    expect((await request(api.app).delete(`/auth/sessions/${aId}`).set('Cookie', b.cookie)).status).toBe(403);
    const revoked = await request(api.app).delete(`/auth/sessions/${aId}`).set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf);
    expect(revoked.status).toBe(204);
    expect((await session(a)).status).toBe(401);
    expect((await request(api.app).get('/auth/sessions').set('Cookie', b.cookie)).body.data).toHaveLength(1);
    expect((await request(api.app).delete(`/auth/sessions/${aId}`).set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf)).status).toBe(404);
  });

  it('answers GET /auth/session and sign-in as documented', async () => {
    const channel = await api.fixtures.aChannel();
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] });
    const res = await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password });
    expectResponseMatchesDocument(res);
    const s = await session(`mailcast_session=${sessionCookieOf(res)!}`);
    expectResponseMatchesDocument(s);
    expectResponseMatchesDocument(await request(api.app).post('/auth/sign_in').send({ email: user.email, password: 'wrong password!' }));
  });

  it('expires a session after 12 hours without use; each use keeps it alive', async () => {
    const channel = await api.fixtures.aChannel();
    const s = await signIn(api.app, await aUser(api, { channels: [{ channelId: channel.id, role: 'Viewer' }] }));
    time.advance(11 * HOUR);
    expect((await request(api.app).get('/api/v1/broadcasts').set('Cookie', s.cookie)).status).toBe(200);
    time.advance(11 * HOUR);
    expect((await session(s)).status).toBe(200);
    time.advance(12 * HOUR + MINUTE);
    expect((await session(s)).body).toEqual({ error: 'Not signed in' });
    expect((await request(api.app).get('/api/v1/broadcasts').set('Cookie', s.cookie)).status).toBe(401);
    expect((await request(api.app).get('/auth/sessions').set('Cookie', s.cookie)).status).toBe(401);
  });

  it('a deactivated user’s sessions stop working at once', async () => {
    const user = await aUser(api);
    const s = await signIn(api.app, user);
    await api.database.db('users').where({ id: user.id }).update({ active: false });
    expect((await session(s)).status).toBe(401);
  });

  it('changing the password revokes every other session of the user and keeps this one', async () => {
    const user = await aUser(api);
    const other = await signIn(api.app, user);
    const current = await signIn(api.app, user);
    const change = (body: object, csrf: string | null = current.csrf) => {
      const r = request(api.app).post('/auth/password/change').set('Cookie', current.cookie);
      return (csrf === null ? r : r.set('X-CSRF-Token', csrf)).send(body);
    };
    expect((await change({ current_password: user.password, new_password: 'a brand new password' }, null)).status).toBe(403);
    const wrong = await change({ current_password: 'not my password', new_password: 'a brand new password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ error: 'Current password is incorrect' });
    const short = await change({ current_password: user.password, new_password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.error).toMatch(/too short/);
    // Nothing changed by the refusals: the other session still works, the old password too.
    expect((await session(other)).status).toBe(200);
    const ok = await change({ current_password: user.password, new_password: 'a brand new password' });
    expect(ok.status).toBe(200);
    expectResponseMatchesDocument(ok);
    expect((await session(other)).status).toBe(401);
    expect((await session(current)).status).toBe(200);
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password })).status).toBe(401);
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: 'a brand new password' })).status).toBe(200);
  });
});
