import { spawn } from 'node:child_process';
import path from 'node:path';

export interface OidcAccount {
  email: string;
  email_verified: boolean;
}

export interface TestOidcProvider {
  issuer: string;
  stop(): Promise<void>;
}

/**
 * A real OpenID Connect provider on loopback (oidc-provider, in a child process since it is
 * ESM-only): one confidential client, the given accounts, the development login form.
 */
export async function startOidcProvider(options: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: Record<string, OidcAccount>;
}): Promise<TestOidcProvider> {
  const child = spawn(process.execPath, [path.join(__dirname, 'oidc-provider.mjs')], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', OIDC_TEST_CONFIG: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      const line = stdout.split('\n');
      if (line.length > 1) resolve(line[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}): ${stderr}`)));
  });
  return {
    issuer,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Cookies kept between requests to one provider, as a browser would (names and values only). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * A browser at the provider: opens the authorization URL, fills the development login form with
 * `login`, follows the redirects by hand and answers where the provider finally sends the
 * browser back (the relying party's callback URL with its query).
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<string> {
  const jar = new CookieJar();
  const origin = new URL(authorizationUrl).origin;
  let url = authorizationUrl;
  let body: URLSearchParams | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { cookie: jar.header(), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
      body,
      redirect: 'manual',
    });
    jar.take(response);
    body = undefined;
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (next.origin !== origin) return next.toString();
      url = next.toString();
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(html)?.[1];
    if (response.status !== 200 || action === undefined) throw new Error(`provider answered ${response.status}: ${html.slice(0, 500)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url).toString();
    body = new URLSearchParams({ prompt: 'login', login, password: 'any password' });
  }
  throw new Error('too many redirects at the provider');
}
