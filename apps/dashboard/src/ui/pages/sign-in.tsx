import { useState } from 'preact/hooks';
import { whoami, type Identity } from '../api';
import { ErrorMessage, Field } from '../components';
import { errorMessage } from '../hooks';

/**
 * The token is read from the field, checked with whoami and handed up; the form posts nowhere
 * (method post, handled in script), so the token can never land in a URL.
 */
export function SignIn({ onSignedIn }: { onSignedIn(token: string, identity: Identity): void }) {
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
    <main id="main" class="sign-in">
      <h1>Mailcast</h1>
      <form method="post" onSubmit={submit} autocomplete="off">
        <Field label="API token" hint="Kept in this tab only (session storage); signing out or closing the tab forgets it.">
          <input name="token" type="password" autocomplete="off" spellcheck={false} required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </Field>
        {error && <ErrorMessage message={error} />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
