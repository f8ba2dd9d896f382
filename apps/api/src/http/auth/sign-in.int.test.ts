import request from 'supertest';
import { useApi } from '../../test-support/harness';
import { aUser, sessionCookieOf, signIn } from '../../test-support/users';

/** CONTRACT §4.5b: password sign-in, the session cookie, GET /auth/session and sign-out. */
describe('POST /auth/sign_in, GET /auth/session, POST /auth/sign_out', () => {
  const api = useApi();

  it('signs in with the right password: the user, a CSRF token and an HttpOnly SameSite=Strict cookie', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Main' });
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Editor' }] });
    const res = await request(api.app).post('/auth/sign_in').send({ email: user.email.toUpperCase(), password: user.password });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: expect.objectContaining({ id: user.id, email: user.email, sudo: false, two_factor_enabled: false }),
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      two_factor_required: false,
      two_factor_enrolment_required: false,
    });
    expect(res.body.user.system_permissions).toMatchObject({ user_management: false });
    const setCookie = (res.headers['set-cookie'] as unknown as string[]).find((l) => l.startsWith('mailcast_session='))!;
    expect(setCookie).toMatch(/^mailcast_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict$/);
    // Stored only as its SHA-256, never as sent.
    const value = sessionCookieOf(res)!;
    const rows = await api.database.db('user_sessions').where({ user_id: user.id });
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0].token_hash).toString('base64url')).not.toBe(value);
    expect(JSON.stringify(rows[0])).not.toContain(value);
    expect((await api.database.db('users').where({ id: user.id }).first()).last_login_at).not.toBeNull();

    const session = await request(api.app).get('/auth/session').set('Cookie', `mailcast_session=${value}`);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      user: { id: user.id, email: user.email },
      csrf_token: res.body.csrf_token,
      two_factor_required: false,
      two_factor_enrolment_required: false,
      channels: [
        {
          id: channel.id,
          name: 'Main',
          slug: channel.slug,
          role: 'Editor',
          permissions: expect.objectContaining({ broadcasts_write: true, tokens_read: false }),
        },
      ],
    });
  });

  it('answers one 401 for an unknown email, a wrong password and an inactive user', async () => {
    const user = await aUser(api);
    const inactive = await aUser(api, { active: false });
    for (const body of [
      { email: 'nobody@example.com', password: 'whatever password' },
      { email: user.email, password: 'wrong password!!' },
      { email: inactive.email, password: inactive.password },
    ]) {
      const res = await request(api.app).post('/auth/sign_in').send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid email or password' });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a body that is not JSON, or a request from another origin (403), and a missing field (422)', async () => {
    const user = await aUser(api);
    const form = await request(api.app).post('/auth/sign_in').type('form').send({ email: user.email, password: user.password });
    expect(form.status).toBe(403);
    expect(form.body).toEqual({ error: 'Content-Type must be application/json' });
    const cross = await request(api.app).post('/auth/sign_in').set('Origin', 'https://evil.example').send({ email: user.email, password: user.password });
    expect(cross.status).toBe(403);
    expect(cross.body).toEqual({ error: 'Cross-origin request refused' });
    const same = await request(api.app).post('/auth/sign_in').set('Origin', 'http://localhost:3000').send({ email: user.email, password: user.password });
    expect(same.status).toBe(200);
    const missing = await request(api.app).post('/auth/sign_in').send({ email: user.email });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ error: 'password is required' });
  });

  it('GET /auth/session without a live session: 401 Not signed in', async () => {
    expect((await request(api.app).get('/auth/session')).body).toEqual({ error: 'Not signed in' });
    const res = await request(api.app)
      .get('/auth/session')
      .set('Cookie', 'mailcast_session=' + 'A'.repeat(43));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Not signed in' });
  });

  it('sign-out needs the CSRF token, revokes the session and clears the cookie', async () => {
    const user = await aUser(api);
    const s = await signIn(api.app, user);
    const noCsrf = await request(api.app).post('/auth/sign_out').set('Cookie', s.cookie);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toEqual({ error: 'CSRF token missing or invalid' });
    expect((await request(api.app).get('/auth/session').set('Cookie', s.cookie)).status).toBe(200);
    const out = await request(api.app).post('/auth/sign_out').set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf);
    expect(out.status).toBe(204);
    expect((out.headers['set-cookie'] as unknown as string[])[0]).toMatch(/^mailcast_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    expect((await request(api.app).get('/auth/session').set('Cookie', s.cookie)).status).toBe(401);
    expect((await api.database.db('user_sessions').where({ user_id: user.id }).first()).revoked_at).not.toBeNull();
  });
});
