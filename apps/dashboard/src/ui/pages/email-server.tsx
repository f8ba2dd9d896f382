import { useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { ErrorMessage, Feedback, formatTime, Loading } from '../components';
import { errorMessage, useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { EmailServerForm, type EmailServer } from './email-server-form';
import { limitsSummary, serverTitle, tlsLabel } from './email-servers';

type Check = Schemas['SmtpCheck'];
type DkimRecord = Schemas['DkimRecord'];

/** One email server: its settings, Test connection, the DKIM record to publish, delete, edit (docs/dashboard.md, "Email servers"). */
export function EmailServerPage() {
  const id = Number(useParams<{ id: string }>().id);
  const can = useCan();
  const [, navigate] = useLocation();
  const server = useResource(() => api<EmailServer>('GET', `/email_servers/${id}`), [id]);
  const remove = useAction();

  if (server.error && !server.data) return <ErrorMessage message={server.error} />;
  if (!server.data) return <Loading />;
  const s = server.data;
  const writable = can('email_servers_write');

  async function onDelete() {
    if (!window.confirm(`Delete the email server ${serverTitle(s)}? Broadcasts and sequences stop using it.`)) return;
    if (await remove.run(() => api('DELETE', `/email_servers/${id}`))) navigate('/email-servers');
  }

  return (
    <section class="email-server">
      <p>
        <Link href="/email-servers">← Email servers</Link>
      </p>
      <h1>{serverTitle(s)}</h1>
      <dl class="facts">
        <dt>Host</dt>
        <dd class="url">
          {s.host}:{s.port}
        </dd>
        <dt>TLS</dt>
        <dd>{tlsLabel(s.tls)}</dd>
        <dt>SMTP username</dt>
        <dd>{s.smtp_username ?? '—'}</dd>
        <dt>SMTP password</dt>
        <dd>{s.smtp_password === null ? 'none stored' : 'stored (write-only)'}</dd>
        <dt>From</dt>
        <dd>{s.from_email ? `${s.from_name ? `${s.from_name} ` : ''}<${s.from_email}>` : "the channel's own"}</dd>
        <dt>Limits</dt>
        <dd>{limitsSummary(s)}</dd>
        <dt>DKIM</dt>
        <dd>
          {s.dkim_key_present ? 'a key is stored: every message is signed' : 'no key'}
          {s.dkim_domain || s.dkim_selector ? ` (${s.dkim_selector ?? 'mailcast'}._domainkey.${s.dkim_domain ?? 'from domain'})` : ''}
        </dd>
        <dt>Active</dt>
        <dd>{s.active ? 'yes' : 'no: it sends nothing'}</dd>
        <dt>Updated</dt>
        <dd>{formatTime(s.updated_at)}</dd>
      </dl>
      {writable && (
        <>
          <TestConnection id={id} />
          <DkimKey server={s} onGenerated={server.reload} />
          <section class="panel stack">
            <h2>Delete</h2>
            <p class="muted">Refused while a scheduled or sending broadcast uses the server.</p>
            <Feedback action={remove} />
            <div class="actions">
              <button type="button" class="danger" disabled={remove.busy} onClick={() => void onDelete()}>
                Delete email server
              </button>
            </div>
          </section>
          <section class="panel">
            <h2>Settings</h2>
            <EmailServerForm
              server={s}
              submitLabel="Save"
              onSubmit={async (body) => {
                await api<EmailServer>('PATCH', `/email_servers/${id}`, { body: { email_server: body } });
                server.reload();
              }}
            />
          </section>
        </>
      )}
    </section>
  );
}

/**
 * Test connection: the API's handshake and its `{ok, message}` as it answers (docs/email-servers.md,
 * "test_connection"). A failure answers only after 10 s, whatever failed, so the wait is said.
 */
function TestConnection({ id }: { id: number }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Check | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  async function test() {
    setBusy(true);
    setResult(undefined);
    setError(undefined);
    try {
      setResult(await api<Check>('POST', `/email_servers/${id}/test_connection`, { body: {} }));
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section class="panel stack email-server-test">
      <h2>Connection</h2>
      <p class="muted">Connects, says EHLO, sets up TLS as configured and logs in when a username and password are set; sends no email.</p>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void test()}>
          Test connection
        </button>
      </div>
      <p class="muted small" aria-live="polite">
        {busy ? 'Testing… a failure answers after 10 seconds, whatever failed.' : ''}
      </p>
      {result?.ok === true && (
        <p class="notice check-ok" role="status" data-check="ok">
          ✓ {result.message}
        </p>
      )}
      {result?.ok === false && (
        <p class="error check-failed" role="alert" data-check="failed">
          ✗ {result.message}
        </p>
      )}
      {error && <ErrorMessage message={error} />}
    </section>
  );
}

/** Generate DKIM key and the TXT record to publish, with a copy button; generating again replaces the key. */
function DkimKey({ server, onGenerated }: { server: EmailServer; onGenerated(): void }) {
  const [record, setRecord] = useState<DkimRecord | undefined>(undefined);
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const action = useAction();
  async function generate() {
    if (server.dkim_key_present && !window.confirm('Replace the DKIM key? Messages are signed with the new one at once: publish its record first.')) return;
    setCopied(undefined);
    const ok = await action.run(async () => setRecord(await api<DkimRecord>('POST', `/email_servers/${server.id}/generate_dkim_key`, { body: {} })));
    if (ok) onGenerated();
  }
  async function copy(value: string) {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Record value copied.');
    } catch {
      setCopied('The browser refused the clipboard: select the value and copy it.');
    }
  }
  return (
    <section class="panel stack email-server-dkim">
      <h2>DKIM key</h2>
      <p class="muted">
        {server.dkim_key_present
          ? 'A key is stored and every message through this server is signed. Generating again replaces it.'
          : 'Generates an RSA 2048 key, kept encrypted; from then on every message through this server is signed. Publish the TXT record it shows in your DNS.'}
      </p>
      <div class="actions">
        <button type="button" disabled={action.busy} onClick={() => void generate()}>
          {server.dkim_key_present ? 'Replace DKIM key' : 'Generate DKIM key'}
        </button>
      </div>
      {action.error && <ErrorMessage message={action.error} />}
      {record && (
        <div class="dkim-record" role="status">
          <p>Publish this record in the DNS of {record.dkim_domain}:</p>
          <dl class="facts">
            <dt>Name</dt>
            <dd>
              <code data-dkim="name">{record.dns_record.name}</code>
            </dd>
            <dt>Type</dt>
            <dd>
              <code data-dkim="type">{record.dns_record.type}</code>
            </dd>
            <dt>Value</dt>
            <dd>
              <code class="dkim-value" data-dkim="value">
                {record.dns_record.value}
              </code>
            </dd>
          </dl>
          <div class="actions">
            <button type="button" onClick={() => void copy(record.dns_record.value)}>
              Copy value
            </button>
          </div>
        </div>
      )}
      {copied && (
        <p class="notice" role="status">
          {copied}
        </p>
      )}
    </section>
  );
}
