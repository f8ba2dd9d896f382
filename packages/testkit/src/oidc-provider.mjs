// A real OpenID Connect provider (oidc-provider 8, ESM-only, so its own process) for the sign-in
// tests: listens on loopback, prints its issuer URL as the first line of stdout. Configured by
// OIDC_TEST_CONFIG: {clientId, clientSecret, redirectUri, accounts: {login: {email, email_verified}}}.
// An account signs in through the provider's development login form with its login and any password.
import Provider from 'oidc-provider';
import { createServer } from 'node:http';

const config = JSON.parse(process.env.OIDC_TEST_CONFIG ?? '{}');

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: config.clientId,
      client_secret: config.clientSecret,
      redirect_uris: [config.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  async findAccount(_ctx, id) {
    const account = config.accounts?.[id];
    if (account === undefined) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...account }) };
  },
  // Consent is granted at once: the tests are about the relying party, not the consent screen.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
    grant.addOIDCScope('openid email');
    await grant.save();
    return grant;
  },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  cookies: { keys: ['mailcast-test-cookie-key'] },
});
// Its warnings about development settings are for developers; the test reads stdout only.
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider: ${error.stack}\n`));
server.on('request', provider.callback());
process.stdout.write(`${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
