import { signInAtProvider, startOidcProvider, suiteResource } from '@mailcast/testkit';
import request from 'supertest';
import { useApi, type ApiHarness } from '../../test-support/harness';
import { aUser, sessionCookieOf } from '../../test-support/users';

const PUBLIC_URL = 'http://mailcast.test';
const CLIENT_SECRET = 'oidc-client-secret-0123456789-0123456789';

function flowCookieOf(res: request.Response): string | undefined {
  const raw = res.headers['set-cookie'] as unknown as string[] | undefined;
  return raw?.find((l) => l.startsWith('mailcast_oidc='));
}

/** GET /auth/oidc/start, then the provider's login as `login`: the callback's path and query, and the flow cookie. */
async function throughProvider(api: ApiHarness, login: string): Promise<{ callback: string; flowCookie: string }> {
  const start = await request(api.app).get('/auth/oidc/start');
  expect(start.status).toBe(302);
  const line = flowCookieOf(start)!;
  const callback = new URL(await signInAtProvider(start.headers.location!, login));
  expect(callback.origin + callback.pathname).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
  return { callback: callback.pathname + callback.search, flowCookie: line.split(';')[0]! };
}

/** OpenID Connect (docs/teams.md, "OpenID Connect"), against a real provider on loopback. */
describe('OpenID Connect sign-in', () => {
  const env: NodeJS.ProcessEnv = { PUBLIC_URL };
  suiteResource(
    async () => {
      const provider = await startOidcProvider({
        clientId: 'mailcast',
        clientSecret: CLIENT_SECRET,
        redirectUri: `${PUBLIC_URL}/auth/oidc/callback`,
        accounts: {
          ada: { email: 'Ada@Example.com', email_verified: true },
          bob: { email: 'bob@example.com', email_verified: false },
          eve: { email: 'eve@example.com', email_verified: true },
          cy: { email: 'cy@example.com', email_verified: true },
        },
      });
      Object.assign(env, { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: 'mailcast', OIDC_CLIENT_SECRET: CLIENT_SECRET });
      return provider;
    },
    (p) => p.stop(),
  );
  const api = useApi({ env });

  it('GET /auth/providers says OIDC is on', async () => {
    expect((await request(api.app).get('/auth/providers')).body).toEqual({ password: true, oidc: true });
  });

  it('start redirects to the provider with state, nonce and PKCE, kept in a sealed short-lived cookie', async () => {
    const start = await request(api.app).get('/auth/oidc/start');
    expect(start.status).toBe(302);
    const location = new URL(start.headers.location!);
    expect(location.searchParams.get('client_id')).toBe('mailcast');
    expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/auth/oidc/callback`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    for (const p of ['state', 'nonce', 'code_challenge']) expect(location.searchParams.get(p)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const cookie = flowCookieOf(start)!;
    expect(cookie).toMatch(/^mailcast_oidc=mcs1\.[^;]+; Max-Age=600; Path=\/auth\/oidc; Expires=[^;]+; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain(location.searchParams.get('state')!);
  });

  it('an existing user signs in through the whole redirect dance, two-factor passed by the provider', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Main' });
    const user = await aUser(api, { email: 'ada@example.com', twoFactorEnabled: true, channels: [{ channelId: channel.id, role: 'Viewer' }] });
    const { callback, flowCookie } = await throughProvider(api, 'ada');
    const done = await request(api.app).get(callback).set('Cookie', flowCookie);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/app');
    const session = sessionCookieOf(done)!;
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The flow cookie is spent.
    expect(flowCookieOf(done)).toMatch(/^mailcast_oidc=; Path=\/auth\/oidc; Expires=Thu, 01 Jan 1970/);
    const me = await request(api.app).get('/auth/session').set('Cookie', `mailcast_session=${session}`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: user.id, email: 'ada@example.com', two_factor_enabled: true }, two_factor_required: false });
    expect(me.body.channels).toEqual([expect.objectContaining({ id: channel.id, role: 'Viewer' })]);
    expect((await request(api.app).get('/api/v1/broadcasts').set('Cookie', `mailcast_session=${session}`)).status).toBe(200);
    const row = await api.database.db('user_sessions').where({ user_id: user.id }).first();
    expect(row.two_factor_passed).toBe(true);
    // The same callback again (its cookie replayed): the code is spent, refused.
    const again = await request(api.app).get(callback).set('Cookie', flowCookie);
    expect(again.headers.location).toBe('/app/sign-in?error=oidc');
  });

  it.each([
    ['an email no user has', 'eve'],
    // bob exists: only the provider's email_verified false refuses him.
    ['an email the provider has not verified', 'bob'],
  ])('%s is refused: back to sign-in, no session', async (_what, login) => {
    if (login === 'bob') await aUser(api, { email: 'bob@example.com' });
    const { callback, flowCookie } = await throughProvider(api, login);
    const res = await request(api.app).get(callback).set('Cookie', flowCookie);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/app/sign-in?error=oidc');
    expect(sessionCookieOf(res)).toBeUndefined();
  });

  it('an inactive user is refused', async () => {
    const user = await aUser(api, { email: 'cy@example.com', active: false });
    const { callback, flowCookie } = await throughProvider(api, 'cy');
    const res = await request(api.app).get(callback).set('Cookie', flowCookie);
    expect(res.headers.location).toBe('/app/sign-in?error=oidc');
    expect(await api.database.db('user_sessions').where({ user_id: user.id })).toHaveLength(0);
  });

  it('a forged state, a missing or forged flow cookie are refused', async () => {
    const { callback, flowCookie } = await throughProvider(api, 'ada');
    const forgedState = callback.replace(/state=[^&]+/, 'state=forged-state-value');
    expect(forgedState).not.toBe(callback);
    const states = await Promise.all([
      request(api.app).get(forgedState).set('Cookie', flowCookie),
      request(api.app).get(callback),
      request(api.app)
        .get(callback)
        .set('Cookie', `mailcast_oidc=mcs1.0000000000000000.${'A'.repeat(60)}`),
    ]);
    for (const res of states) {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/app/sign-in?error=oidc');
      expect(sessionCookieOf(res)).toBeUndefined();
    }
  });
});

describe('without OIDC_* configured', () => {
  const api = useApi();

  it('providers says so, and start and callback are 404', async () => {
    expect((await request(api.app).get('/auth/providers')).body).toEqual({ password: true, oidc: false });
    expect((await request(api.app).get('/auth/oidc/start')).status).toBe(404);
    expect((await request(api.app).get('/auth/oidc/callback?code=x&state=y')).body).toEqual({ error: 'Not found' });
  });
});
