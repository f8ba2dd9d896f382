import { useState } from 'preact/hooks';
import { authApi } from '../api';
import { ErrorMessage, Feedback, Field } from '../components';
import { errorMessage, useAction } from '../hooks';
import { useAccount, useIdentity } from '../session';

interface Enrolment {
  secret: string;
  otpauth_url: string;
  qr_svg: string;
}

/**
 * The QR code as an image: the SVG string as a base64 data: URL, which the page's policy allows
 * (img-src data:); put in the DOM it would bring inline style attributes the policy refuses.
 */
export function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

/**
 * Turning two-factor on (docs/dashboard.md, "Two-factor"): a new secret as a QR code (and as
 * text), a code from the app to confirm it, then the ten recovery codes, shown once, which the
 * user must say they saved before going on.
 */
export function TwoFactorEnrol({ onDone }: { onDone(): Promise<void> | void }) {
  const [enrolment, setEnrolment] = useState<Enrolment | undefined>(undefined);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const action = useAction();

  if (codes) {
    return (
      <div class="panel stack">
        <h2>Your recovery codes</h2>
        <p>
          Each code signs you in once if you lose your authenticator app. They are shown <strong>only now</strong>: save them in your password manager or print
          them.
        </p>
        <ol class="recovery-codes" aria-label="Recovery codes">
          {codes.map((c) => (
            <li key={c}>
              <code>{c}</code>
            </li>
          ))}
        </ol>
        <label class="inline">
          <input type="checkbox" name="saved_codes" checked={saved} onChange={(e) => setSaved(e.currentTarget.checked)} /> I saved them
        </label>
        <div class="actions">
          <button type="button" class="primary" disabled={!saved} onClick={() => void onDone()}>
            Continue
          </button>
        </div>
      </div>
    );
  }

  if (!enrolment) {
    return (
      <div class="panel stack">
        <p>Two-factor asks for a code from an authenticator app (any TOTP app) after your password.</p>
        <Feedback action={action} />
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={action.busy}
            onClick={() => void action.run(async () => setEnrolment(await authApi<Enrolment>('POST', '/two_factor/enrol')))}
          >
            Set up two-factor
          </button>
        </div>
      </div>
    );
  }

  async function confirm(event: Event) {
    event.preventDefault();
    await action.run(async () => setCodes((await authApi<{ recovery_codes: string[] }>('POST', '/two_factor/confirm', { code: code.trim() })).recovery_codes));
  }

  return (
    <form class="panel stack" method="post" onSubmit={confirm} autocomplete="off">
      <h2>Scan the code</h2>
      <img class="qr" src={svgDataUrl(enrolment.qr_svg)} alt="QR code to add Mailcast to your authenticator app" width={200} height={200} />
      <p class="small">
        Or type this key into the app:{' '}
        <code class="secret" data-secret>
          {enrolment.secret}
        </code>
      </p>
      <Field label="Code from the app" hint="6 digits: confirms the app has the key.">
        <input
          name="code"
          inputMode="numeric"
          autocomplete="one-time-code"
          spellcheck={false}
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </Field>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Turn on two-factor
        </button>
      </div>
    </form>
  );
}

/** The Two-factor page of a signed-in user: its state, enrolment, or turning it off with the password. */
export function TwoFactor() {
  const { user } = useIdentity();
  const account = useAccount();
  const [password, setPassword] = useState('');
  const action = useAction();
  if (!user) return <ErrorMessage message="Two-factor belongs to a user: sign in with your email and password." />;

  async function disable(event: Event) {
    event.preventDefault();
    if (await action.run(() => authApi('POST', '/two_factor/disable', { password }), 'Two-factor is off.')) {
      setPassword('');
      await account.refresh();
    }
  }

  return (
    <section>
      <h1>Two-factor authentication</h1>
      {user.two_factor_enabled ? (
        <form class="panel stack" method="post" onSubmit={disable}>
          <p>
            Two-factor is <strong>on</strong> for {user.email}.
          </p>
          <Field label="Password" hint="Turning it off asks for your password.">
            <input
              name="disable_password"
              type="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </Field>
          <Feedback action={action} />
          <div class="actions">
            <button type="submit" class="danger" disabled={action.busy}>
              Turn off two-factor
            </button>
          </div>
        </form>
      ) : (
        <TwoFactorEnrol onDone={() => account.refresh()} />
      )}
    </section>
  );
}

/** Forced enrolment (MAILCAST_REQUIRE_2FA): nothing else opens until two-factor is on. */
export function RequiredEnrolment({ email, onDone, onSignOut }: { email: string; onDone(): Promise<void>; onSignOut(): void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <main id="main" class="enrol">
      <h1>Set up two-factor authentication</h1>
      <p>This installation requires two-factor for every user: set it up for {email} to go on.</p>
      {error && <ErrorMessage message={error} />}
      <TwoFactorEnrol onDone={() => onDone().catch((e: unknown) => setError(errorMessage(e)))} />
      <button type="button" class="link" onClick={onSignOut}>
        Sign out
      </button>
    </main>
  );
}
