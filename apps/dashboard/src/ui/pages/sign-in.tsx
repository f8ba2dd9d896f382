import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { authApi, whoami, type Identity, type SessionState } from '../api';
import { ErrorMessage, Field } from '../components';
import { errorMessage } from '../hooks';

/**
 * The sign-in page (docs/dashboard.md, "Signing in"): a user's email and password first, then, for
 * developers, an API token. Both forms post nowhere (method post, handled in script), so neither
 * a password nor a token can land in a URL even before the script runs.
 */
export function SignIn({
  onSignedIn,
  onSession,
  notice,
}: {
  onSignedIn(token: string, identity: Identity): void;
  onSession(state: SessionState): Promise<void>;
  notice?: string;
}) {
  const oidcFailed = new URLSearchParams(location.search).get('error') === 'oidc';
  // Single sign-on is offered only when the installation has OpenID Connect set up (GET /auth/providers).
  const [oidc, setOidc] = useState(false);
  useEffect(() => {
    authApi<{ oidc?: boolean }>('GET', '/providers')
      .then((p) => setOidc(p.oidc === true))
      .catch(() => setOidc(false));
  }, []);
  return (
    <main id="main" class="sign-in">
      <h1>Mailcast</h1>
      {oidcFailed && <ErrorMessage message="Single sign-on did not find an active account with a verified email: ask a user manager to add you." />}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <PasswordSignIn onSession={onSession} />
      {oidc && (
        <p>
          {/* A full navigation: the provider's redirect dance sets and reads its own cookies. */}
          <a class="button" href="/auth/oidc/start">
            Sign in with single sign-on
          </a>
        </p>
      )}
      <p class="muted small">
        <a href="#token">Use an API token</a> (for developers)
      </p>
      <TokenSignIn onSignedIn={onSignedIn} />
    </main>
  );
}

function PasswordSignIn({ onSession }: { onSession(state: SessionState): Promise<void> }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // Every refusal is the API's own words ("Invalid email or password", the address limit's 429).
      await onSession(await authApi<SessionState>('POST', '/sign_in', { email, password }));
    } catch (e) {
      setError(errorMessage(e));
      setPassword('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={submit} aria-labelledby="password-sign-in">
      <h2 id="password-sign-in">Sign in</h2>
      <Field label="Email">
        <input name="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field label="Password">
        <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </Field>
      {error && <ErrorMessage message={error} />}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <Link href="/forgot-password">Forgot password?</Link>
    </form>
  );
}

/**
 * The token is read from the field, checked with whoami and handed up; the form posts nowhere
 * (method post, handled in script), so the token can never land in a URL.
 */
function TokenSignIn({ onSignedIn }: { onSignedIn(token: string, identity: Identity): void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const value = token.trim();
    if (value === '') {
      setError('Paste an API token: create one with `npm run -s admin -- token create`.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(value, await whoami(value));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form id="token" method="post" onSubmit={submit} autocomplete="off" aria-labelledby="token-sign-in">
      <h2 id="token-sign-in">Use an API token</h2>
      <Field label="API token" hint="Kept in this tab only (session storage); signing out or closing the tab forgets it.">
        <input name="token" type="password" autocomplete="off" spellcheck={false} required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
      </Field>
      {error && <ErrorMessage message={error} />}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in with the token'}
      </button>
    </form>
  );
}

/** "Forgot password?": the API answers the same whether the address has an account or not. */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setMessage((await authApi<{ message: string }>('POST', '/password/forgot', { email })).message);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Forgot password</h1>
      <form method="post" onSubmit={submit}>
        <p class="muted">Enter your email: if it has an account, a link to set a new password (valid two hours) is sent to it.</p>
        <Field label="Email">
          <input name="forgot_email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        {error && <ErrorMessage message={error} />}
        {message && (
          <p class="notice" role="status">
            {message}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Send the link
        </button>
        <Link href="/sign-in">Back to sign-in</Link>
      </form>
    </main>
  );
}

/** The page a reset link opens (`/app/reset-password?token=…`): a new password for the account. */
export function ResetPassword() {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (password !== repeat) {
      setError('The two passwords differ: type the same one twice.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      setMessage((await authApi<{ message: string }>('POST', '/password/reset', { token, password })).message);
    } catch (e) {
      // The API's words: an expired or used link, a password under 12 characters.
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Set a new password</h1>
      {message ? (
        <p class="notice" role="status">
          {message} <Link href="/sign-in">Sign in</Link>
        </p>
      ) : (
        <form method="post" onSubmit={submit}>
          {token === '' && <ErrorMessage message="This page needs the link from the email: open it again or ask for a new one." />}
          <Field label="New password" hint="At least 12 characters. Every session of the account ends.">
            <input
              name="new_password"
              type="password"
              autocomplete="new-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </Field>
          <Field label="The same password again">
            <input
              name="repeat_password"
              type="password"
              autocomplete="new-password"
              required
              value={repeat}
              onInput={(e) => setRepeat(e.currentTarget.value)}
            />
          </Field>
          {error && <ErrorMessage message={error} />}
          <button type="submit" class="primary" disabled={busy || token === ''}>
            Set the password
          </button>
          <Link href="/forgot-password">Ask for a new link</Link>
        </form>
      )}
    </main>
  );
}

/** The second step of a sign-in when the account has two-factor on: a TOTP or a recovery code. */
export function TwoFactorStep({ onPassed, onCancel }: { onPassed(): Promise<void>; onCancel(): void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await authApi('POST', '/two_factor/verify', { code: code.trim() });
      await onPassed();
    } catch (e) {
      setError(errorMessage(e));
      setCode('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <h1>Two-factor authentication</h1>
      <form method="post" onSubmit={submit} autocomplete="off">
        <Field label="Code" hint="The 6 digits your authenticator app shows, or one of your recovery codes.">
          <input name="code" autocomplete="one-time-code" spellcheck={false} required value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        </Field>
        {error && <ErrorMessage message={error} />}
        <button type="submit" class="primary" disabled={busy}>
          Verify
        </button>
        <button type="button" class="link" onClick={onCancel}>
          Cancel and sign out
        </button>
      </form>
    </main>
  );
}
