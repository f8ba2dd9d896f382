import { Clock } from '@mailcast/core';
import { testClock } from '@mailcast/testkit';
import { createHash } from 'node:crypto';
import { generate } from 'otplib';
import request from 'supertest';
import { useApi, type ApiHarness } from '../../test-support/harness';
import { aUser, signIn, type SignedInSession } from '../../test-support/users';

// A clock the test moves a TOTP step (30 s) at a time, from the start of a step.
const time = testClock(Math.floor(Date.now() / 30_000) * 30_000 + 1_000);
const overrides = [{ token: Clock, value: time.clock }];
const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(time.current() / 1000) });

function post(api: ApiHarness, s: SignedInSession, path: string, body: object = {}) {
  return request(api.app).post(path).set('Cookie', s.cookie).set('X-CSRF-Token', s.csrf).send(body);
}
const apiCall = (api: ApiHarness, s: SignedInSession) => request(api.app).get('/api/v1/broadcasts').set('Cookie', s.cookie);

async function enrolled(api: ApiHarness, s: SignedInSession): Promise<{ secret: string; recoveryCodes: string[] }> {
  const enrol = await post(api, s, '/auth/two_factor/enrol');
  expect(enrol.status).toBe(200);
  const confirm = await post(api, s, '/auth/two_factor/confirm', { code: await codeNow(enrol.body.secret) });
  expect(confirm.status).toBe(200);
  return { secret: enrol.body.secret, recoveryCodes: confirm.body.recovery_codes };
}

/** Two-factor (docs/teams.md, "Two-factor"). */
describe('two-factor: enrol, confirm, verify, recovery codes, disable', () => {
  const api = useApi({ overrides });

  it('enrol answers a secret, its otpauth URL and a QR code, and keeps the secret sealed, not in clear', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Main' });
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Manager' }] });
    const s = await signIn(api.app, user);
    const enrol = await post(api, s, '/auth/two_factor/enrol');
    expect(enrol.status).toBe(200);
    const { secret, otpauth_url, qr_svg } = enrol.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(otpauth_url);
    expect(url.protocol).toBe('otpauth:');
    expect(url.searchParams.get('secret')).toBe(secret);
    expect(url.searchParams.get('issuer')).toBe('Mailcast');
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
    expect(qr_svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*<\/svg>\s*$/);
    const row = await api.database.db('users').where({ id: user.id }).first();
    expect(row.totp_secret).toMatch(/^mcs1\.[0-9a-f]{16}\./);
    expect(row.totp_secret).not.toContain(secret);
    expect(row.two_factor_enabled).toBe(false);
    // Without the CSRF token: 403, and nothing changes.
    const noCsrf = await request(api.app).post('/auth/two_factor/enrol').set('Cookie', s.cookie);
    expect(noCsrf.status).toBe(403);
    expect((await api.database.db('users').where({ id: user.id }).first()).totp_secret).toBe(row.totp_secret);
  });

  it('enrol → confirm → sign out → sign in asks for the code; wrong 401, right passes, the same again 401; a recovery code works once', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Two-factor' });
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Manager' }] });
    const first = await signIn(api.app, user);
    const enrol = await post(api, first, '/auth/two_factor/enrol');
    const secret: string = enrol.body.secret;

    const wrongConfirm = await post(api, first, '/auth/two_factor/confirm', { code: '000000' === (await codeNow(secret)) ? '111111' : '000000' });
    expect(wrongConfirm.status).toBe(422);
    expect(wrongConfirm.body).toEqual({ error: 'Invalid code' });
    const confirmCode = await codeNow(secret);
    const confirm = await post(api, first, '/auth/two_factor/confirm', { code: confirmCode });
    expect(confirm.status).toBe(200);
    const codes: string[] = confirm.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z02-9]{5}-[a-z02-9]{5}$/);
    const userRow = await api.database.db('users').where({ id: user.id }).first();
    expect(userRow.two_factor_enabled).toBe(true);
    // Recovery codes are kept as SHA-256 only.
    const stored = await api.database.db('user_recovery_codes').where({ user_id: user.id });
    expect(stored.map((r) => (r.code_hash as Buffer).toString('hex')).sort()).toEqual(
      codes.map((c) => createHash('sha256').update(c.replace('-', '')).digest('hex')).sort(),
    );
    // The session that confirmed stays usable.
    expect((await apiCall(api, first)).status).toBe(200);
    expect((await post(api, first, '/auth/sign_out')).status).toBe(204);

    const second = await signIn(api.app, user);
    expect(second.body).toMatchObject({ two_factor_required: true, user: { two_factor_enabled: true } });
    expect((await apiCall(api, second)).body).toEqual({ error: 'Two-factor code required' });
    expect((await request(api.app).get('/auth/session').set('Cookie', second.cookie)).body).toMatchObject({ two_factor_required: true, channels: [] });

    // The code the confirmation used: its time step is spent.
    const replayOfConfirm = await post(api, second, '/auth/two_factor/verify', { code: confirmCode });
    expect(replayOfConfirm.status).toBe(401);
    expect(replayOfConfirm.body).toEqual({ error: 'Invalid code' });

    time.advance(30_000);
    const right = await codeNow(secret);
    const wrong = await post(api, second, '/auth/two_factor/verify', { code: right === '123456' ? '654321' : '123456' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid code' });
    const noCsrf = await request(api.app).post('/auth/two_factor/verify').set('Cookie', second.cookie).send({ code: right });
    expect(noCsrf.status).toBe(403);

    const passed = await post(api, second, '/auth/two_factor/verify', { code: right });
    expect(passed.status).toBe(200);
    expect(passed.body).toEqual({ ok: true });
    expect((await apiCall(api, second)).status).toBe(200);
    expect((await request(api.app).get('/auth/session').set('Cookie', second.cookie)).body).toMatchObject({ two_factor_required: false });
    // A session that has passed has no code to give.
    expect((await post(api, second, '/auth/two_factor/verify', { code: right })).status).toBe(422);

    // The same code on another session (a replay within its 30 s): refused.
    const third = await signIn(api.app, user);
    const replay = await post(api, third, '/auth/two_factor/verify', { code: right });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'Invalid code' });
    expect((await apiCall(api, third)).status).toBe(401);

    // A recovery code passes once; typed in capitals without the dash, another one passes too.
    expect((await post(api, third, '/auth/two_factor/verify', { code: codes[0] })).body).toEqual({ ok: true });
    expect((await apiCall(api, third)).status).toBe(200);
    const fourth = await signIn(api.app, user);
    expect((await post(api, fourth, '/auth/two_factor/verify', { code: codes[0] })).status).toBe(401);
    expect((await post(api, fourth, '/auth/two_factor/verify', { code: codes[1]!.replace('-', '').toUpperCase() })).status).toBe(200);
    const used = await api.database.db('user_recovery_codes').where({ user_id: user.id }).whereNotNull('used_at');
    expect(used).toHaveLength(2);
  });

  it('confirm without enrol, enrol when already on, and a code that is not a string: 422', async () => {
    const user = await aUser(api);
    const s = await signIn(api.app, user);
    expect((await post(api, s, '/auth/two_factor/confirm', { code: '123456' })).body).toEqual({ error: 'Start enrolment first' });
    expect((await post(api, s, '/auth/two_factor/confirm', { code: 123456 })).status).toBe(422);
    expect((await post(api, s, '/auth/two_factor/verify', { code: '123456' })).status).toBe(422);
    time.advance(30_000);
    await enrolled(api, s);
    expect((await post(api, s, '/auth/two_factor/enrol')).body).toEqual({ error: 'Two-factor is already enabled' });
    expect((await request(api.app).post('/auth/two_factor/enrol')).body).toEqual({ error: 'Not signed in' });
  });

  it('disable needs the password; then sign-in asks for no code and the secret and recovery codes are gone', async () => {
    const user = await aUser(api);
    const s = await signIn(api.app, user);
    time.advance(30_000);
    await enrolled(api, s);
    const wrong = await post(api, s, '/auth/two_factor/disable', { password: 'not the password at all' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ error: 'Password is incorrect' });
    expect((await api.database.db('users').where({ id: user.id }).first()).two_factor_enabled).toBe(true);
    const off = await post(api, s, '/auth/two_factor/disable', { password: user.password });
    expect(off.status).toBe(200);
    const row = await api.database.db('users').where({ id: user.id }).first();
    expect(row).toMatchObject({ two_factor_enabled: false, totp_secret: null, totp_last_step: null });
    expect(await api.database.db('user_recovery_codes').where({ user_id: user.id })).toHaveLength(0);
    expect((await signIn(api.app, user)).body).toMatchObject({ two_factor_required: false, user: { two_factor_enabled: false } });
  });

  it('10 wrong codes lock the account and end its sessions', async () => {
    const user = await aUser(api);
    const s = await signIn(api.app, user);
    time.advance(30_000);
    const { secret } = await enrolled(api, s);
    await post(api, s, '/auth/sign_out');
    const pending = await signIn(api.app, user);
    time.advance(30_000);
    const right = await codeNow(secret);
    const wrong = right === '000000' ? '999999' : '000000';
    for (let i = 0; i < 10; i++) expect((await post(api, pending, '/auth/two_factor/verify', { code: wrong })).status).toBe(401);
    expect((await api.database.db('users').where({ id: user.id }).first()).locked_until).not.toBeNull();
    // The session is over, and so is password sign-in while locked.
    expect((await post(api, pending, '/auth/two_factor/verify', { code: right })).body).toEqual({ error: 'Not signed in' });
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: user.password })).status).toBe(401);
  });
});

/** MAILCAST_REQUIRE_2FA=true: /api/v1 with a session is closed until the user has enrolled. */
describe('MAILCAST_REQUIRE_2FA', () => {
  const api = useApi({ overrides, env: { MAILCAST_REQUIRE_2FA: 'true' } });

  it('blocks /api/v1 with 403 until enrolled, then opens it; disable is refused; tokens are unaffected', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    const user = await aUser(api, { channels: [{ channelId: channel.id, role: 'Manager' }] });
    const s = await signIn(api.app, user);
    expect(s.body).toMatchObject({ two_factor_required: false, two_factor_enrolment_required: true });
    const blocked = await apiCall(api, s);
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ error: 'Two-factor enrolment required' });
    expect((await request(api.app).get('/auth/session').set('Cookie', s.cookie)).body).toMatchObject({ two_factor_enrolment_required: true });
    // An API token is not a user: it is not asked to enrol.
    expect((await request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`)).status).toBe(200);

    time.advance(30_000);
    await enrolled(api, s);
    expect((await apiCall(api, s)).status).toBe(200);
    expect((await request(api.app).get('/auth/session').set('Cookie', s.cookie)).body).toMatchObject({ two_factor_enrolment_required: false });
    const disable = await post(api, s, '/auth/two_factor/disable', { password: user.password });
    expect(disable.status).toBe(422);
    expect(disable.body).toEqual({ error: 'Two-factor is required on this installation' });
  });
});
