import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api';
import { ErrorMessage } from '../components';
import { CheckedField, NO_REFUSAL, refusalOf, type Refusal } from '../field-errors';

export type EmailServer = Schemas['EmailServer'];
type Tls = EmailServer['tls'];

/** What each TLS mode means (docs/email-servers.md, "TLS"). */
const TLS_MODES: ReadonlyArray<{ value: Tls; label: string; hint: string }> = [
  {
    value: 'starttls',
    label: 'STARTTLS',
    hint: 'Connect in plain, then upgrade with STARTTLS (usually port 587). The server must offer it: no password or message is ever sent without TLS.',
  },
  { value: 'implicit', label: 'Implicit TLS', hint: 'TLS from the first byte (usually port 465).' },
  {
    value: 'none',
    label: 'None (plaintext)',
    hint: 'No TLS at all: allowed only for a loopback host (localhost, 127.0.0.1, ::1) unless the installation sets SMTP_ALLOW_PLAINTEXT=true.',
  },
];

const LIMITS = [
  ['max_per_second', 'Per second'],
  ['max_per_minute', 'Per minute'],
  ['max_per_hour', 'Per hour'],
  ['max_per_day', 'Per day'],
] as const;
type LimitField = (typeof LIMITS)[number][0];

const TEXTS = ['name', 'host', 'smtp_username', 'from_email', 'from_name', 'dkim_domain', 'dkim_selector', 'bounce_domain'] as const;
type TextField = (typeof TEXTS)[number];

/** The form as typed: every field a string, except the TLS mode and `active`. */
type Draft = Record<TextField | LimitField | 'port', string> & { tls: Tls; active: boolean };

/** The fields this form shows, so a refusal naming another one still shows (above the buttons). */
const SHOWN = new Set<string>([...TEXTS, ...LIMITS.map(([f]) => f), 'port', 'tls', 'smtp_password', 'active']);

function draftOf(server: EmailServer | undefined): Draft {
  const text = (value: string | null | undefined) => value ?? '';
  const count = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  return {
    name: text(server?.name),
    host: text(server?.host),
    port: server ? String(server.port) : '587',
    tls: server?.tls ?? 'starttls',
    smtp_username: text(server?.smtp_username),
    from_email: text(server?.from_email),
    from_name: text(server?.from_name),
    max_per_second: count(server?.max_per_second),
    max_per_minute: count(server?.max_per_minute),
    max_per_hour: count(server?.max_per_hour),
    max_per_day: count(server?.max_per_day),
    dkim_domain: text(server?.dkim_domain),
    dkim_selector: text(server?.dkim_selector),
    bounce_domain: text(server?.bounce_domain),
    active: server?.active ?? true,
  };
}

/**
 * A whole number as a number; anything else as typed, so the API refuses it with its own message
 * (the page checks nothing itself). Blank limits are null: no limit.
 */
const numberOrText = (value: string): number | string => (/^\d+$/.test(value.trim()) ? Number(value.trim()) : value);

/**
 * The body of a create or an edit (docs/dashboard.md, "Email servers"). `smtp_password` goes only
 * when the user typed a new one (or asked to remove it): the stored one is never in the page, and
 * the API keeps it when the field is absent, unless the edit moves the connection.
 */
export function bodyOf(draft: Draft, password: string, removePassword: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { port: numberOrText(draft.port), tls: draft.tls, active: draft.active };
  for (const field of TEXTS) body[field] = draft[field].trim();
  for (const [field] of LIMITS) body[field] = draft[field].trim() === '' ? null : numberOrText(draft[field]);
  if (password !== '') body.smtp_password = password;
  else if (removePassword) body.smtp_password = '';
  return body;
}

/** Whether saving `draft` moves the connection of `server` (host, port or TLS mode), which clears its password. */
function movesConnection(server: EmailServer, draft: Draft): boolean {
  return draft.host.trim() !== server.host || draft.port.trim() !== String(server.port) || draft.tls !== server.tls;
}

/**
 * The create and edit form of an email server: every field of the API, the API's refusals beside
 * the fields they name. `server` absent: a new one.
 */
export function EmailServerForm({
  server,
  submitLabel,
  onSubmit,
}: {
  server?: EmailServer;
  submitLabel: string;
  onSubmit(body: Record<string, unknown>): Promise<unknown>;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(server));
  const [password, setPassword] = useState('');
  const [removePassword, setRemovePassword] = useState(false);
  const [refusal, setRefusal] = useState<Refusal>(NO_REFUSAL);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const stored = server?.smtp_password ?? null;
  // The server as the API answers it after any write (this form's save, or generating a DKIM key,
  // which stores the domain and selector): the fields follow, so a save never sends stale values.
  useEffect(() => {
    if (server) setDraft(draftOf(server));
  }, [server?.updated_at]);
  const set = (field: keyof Draft, value: string | boolean) => {
    setSaved(false);
    setDraft({ ...draft, [field]: value });
  };
  const clearsPassword = server !== undefined && stored !== null && password === '' && !removePassword && movesConnection(server, draft);
  const others = Object.entries(refusal.fields).filter(([field]) => !SHOWN.has(field));

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setSaved(false);
    try {
      await onSubmit(bodyOf(draft, password, removePassword));
      setRefusal(NO_REFUSAL);
      setPassword('');
      setRemovePassword(false);
      setSaved(true);
    } catch (e) {
      setRefusal(refusalOf(e));
    } finally {
      setBusy(false);
    }
  }

  const text = (field: TextField, label: string, options: { type?: string; hint?: string; required?: boolean; autocomplete?: string } = {}) => (
    <CheckedField label={label} name={field} hint={options.hint} refusal={refusal}>
      {(attributes) => (
        <input
          {...attributes}
          type={options.type ?? 'text'}
          required={options.required}
          autocomplete={options.autocomplete ?? 'off'}
          value={draft[field]}
          onInput={(e) => set(field, e.currentTarget.value)}
        />
      )}
    </CheckedField>
  );
  const number = (field: LimitField | 'port', label: string, hint?: string) => (
    <CheckedField label={label} name={field} hint={hint} refusal={refusal}>
      {(attributes) => <input {...attributes} inputMode="numeric" autocomplete="off" value={draft[field]} onInput={(e) => set(field, e.currentTarget.value)} />}
    </CheckedField>
  );
  const mode = TLS_MODES.find((m) => m.value === draft.tls);

  return (
    <form class="stack email-server-form" onSubmit={submit} novalidate>
      <fieldset class="email-server-group">
        <legend>Connection</legend>
        {text('name', 'Name', { hint: 'How the dashboard and the API name it (optional).' })}
        <div class="email-server-row">
          {text('host', 'Host', { required: true, hint: 'Host name or IP address of the SMTP server.' })}
          {number('port', 'Port', 'Usually 587 (STARTTLS), 465 (implicit TLS) or 25.')}
        </div>
        <CheckedField label="TLS" name="tls" hint={mode?.hint} refusal={refusal}>
          {(attributes) => (
            <select {...attributes} value={draft.tls} onChange={(e) => set('tls', e.currentTarget.value)}>
              {TLS_MODES.map((m) => (
                <option key={m.value} value={m.value}>
                  {m.label}
                </option>
              ))}
            </select>
          )}
        </CheckedField>
      </fieldset>
      <fieldset class="email-server-group">
        <legend>Credentials</legend>
        {text('smtp_username', 'SMTP username', { autocomplete: 'off' })}
        <CheckedField
          label="SMTP password"
          name="smtp_password"
          refusal={refusal}
          hint={
            stored === null
              ? 'Write-only: once saved it is never shown again, only that one is stored.'
              : 'Write-only: a password is stored (shown as the API shows it, eight bullets). Leave this blank to keep it, type a new one to replace it. Changing host, port or TLS without typing it again clears it: credentials belong to one destination.'
          }
        >
          {(attributes) => (
            <input
              {...attributes}
              type="password"
              autocomplete="new-password"
              placeholder={stored ?? ''}
              value={password}
              onInput={(e) => {
                setSaved(false);
                setPassword(e.currentTarget.value);
              }}
            />
          )}
        </CheckedField>
        {stored !== null && (
          <label class="inline">
            <input type="checkbox" name="remove_password" checked={removePassword} onChange={(e) => setRemovePassword(e.currentTarget.checked)} /> Remove the
            stored password
          </label>
        )}
        {clearsPassword && (
          <p class="email-server-warning" role="status">
            This change of host, port or TLS clears the stored password: type it again to keep using it.
          </p>
        )}
      </fieldset>
      <fieldset class="email-server-group">
        <legend>Sender</legend>
        <div class="email-server-row">
          {text('from_email', 'From email', { type: 'email', hint: "Blank: the channel's own." })}
          {text('from_name', 'From name')}
        </div>
        {text('bounce_domain', 'Bounce domain', { hint: 'Set: bounces come back to bounces+…@this domain and are matched to their recipient.' })}
      </fieldset>
      <fieldset class="email-server-group">
        <legend>Sending limits</legend>
        <p class="hint">At most this many messages through the server, all dispatchers together. Blank: no limit.</p>
        <div class="email-server-limits">{LIMITS.map(([field, label]) => number(field, label))}</div>
      </fieldset>
      <fieldset class="email-server-group">
        <legend>DKIM</legend>
        <div class="email-server-row">
          {text('dkim_domain', 'DKIM domain', { hint: 'Blank: the domain of the from email.' })}
          {text('dkim_selector', 'DKIM selector', { hint: 'Blank: mailcast.' })}
        </div>
      </fieldset>
      <label class="inline">
        <input type="checkbox" name="active" checked={draft.active} onChange={(e) => set('active', e.currentTarget.checked)} /> Active (an inactive server sends
        nothing)
      </label>
      {others.map(([field, messages]) => (
        <ErrorMessage key={field} message={`${field} ${messages.join(', ')}`} />
      ))}
      {refusal.message && <ErrorMessage message={refusal.message} />}
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
