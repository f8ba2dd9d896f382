import { OidcRefused } from '@mailcast/core';
import { signInAtProvider, startOidcProvider, suiteResource } from '@mailcast/testkit';
import { OpenidClientOidc } from './openid-client-oidc';

const REDIRECT = 'http://127.0.0.1:1/auth/oidc/callback';

describe('OpenidClientOidc against a real provider (oidc-provider on loopback)', () => {
  const provider = suiteResource(
    () =>
      startOidcProvider({
        clientId: 'mailcast',
        clientSecret: 'a-client-secret-long-enough-for-hs256-0123456789',
        redirectUri: REDIRECT,
        accounts: {
          ada: { email: 'Ada@Example.com', email_verified: true },
          bob: { email: 'bob@example.com', email_verified: false },
        },
      }),
    (p) => p.stop(),
  );
  const client = () =>
    new OpenidClientOidc({
      issuer: provider.issuer,
      clientId: 'mailcast',
      clientSecret: 'a-client-secret-long-enough-for-hs256-0123456789',
      redirectUri: REDIRECT,
    });

  test('the code flow with state, nonce and PKCE answers the verified identity', async () => {
    const oidc = client();
    const { url, checks } = await oidc.start();
    const authorize = new URL(url);
    expect(authorize.searchParams.get('state')).toBe(checks.state);
    expect(authorize.searchParams.get('nonce')).toBe(checks.nonce);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await signInAtProvider(url, 'ada');
    expect(callback.startsWith(REDIRECT)).toBe(true);
    await expect(oidc.finish(callback, checks)).resolves.toEqual({ subject: 'ada', email: 'Ada@Example.com', emailVerified: true });
  });

  test('an unverified email is answered as such', async () => {
    const oidc = client();
    const { url, checks } = await oidc.start();
    await expect(oidc.finish(await signInAtProvider(url, 'bob'), checks)).resolves.toMatchObject({ email: 'bob@example.com', emailVerified: false });
  });

  test('a callback whose state is not the one sent, or whose PKCE verifier differs, is refused', async () => {
    const oidc = client();
    const { url, checks } = await oidc.start();
    const callback = await signInAtProvider(url, 'ada');
    await expect(oidc.finish(callback, { ...checks, state: 'forged' })).rejects.toBeInstanceOf(OidcRefused);
    const second = await oidc.start();
    const callback2 = await signInAtProvider(second.url, 'ada');
    await expect(oidc.finish(callback2, { ...second.checks, codeVerifier: 'x'.repeat(43) })).rejects.toBeInstanceOf(OidcRefused);
  });

  test('a provider error in the callback is refused', async () => {
    const { checks } = await client().start();
    await expect(client().finish(`${REDIRECT}?error=access_denied&state=${checks.state}`, checks)).rejects.toBeInstanceOf(OidcRefused);
  });
});
