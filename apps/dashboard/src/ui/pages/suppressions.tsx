import { useState } from 'preact/hooks';
import { Link, useRoute } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatNumber, formatTime, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan, useIdentity } from '../session';

type Scope = 'channel' | 'global';
const PATH: Record<Scope, string> = { channel: '/suppressions', global: '/global_suppressions' };
/** The API's own limit on one bulk request (docs/suppressions.md). */
const BULK_LIMIT = 10_000;

/**
 * The addresses of a paste, one per line or separated by commas (or semicolons, spaces): every
 * entry is sent as typed, so the API's answer counts the malformed ones (docs/dashboard.md, Suppressions).
 */
export function pastedAddresses(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/**
 * The installation-wide list is an admin's alone (docs/suppressions.md): a sudo user's session
 * acts as an admin. A channel token or any other user never sees the tab.
 */
export function useGlobalAccess(): { read: boolean; write: boolean } {
  const identity = useIdentity();
  const can = useCan();
  const admin = identity.user?.sudo === true;
  return { read: admin && can('suppressions_read'), write: admin && can('global_suppressions_write') };
}

/** /suppressions (the channel's list) and /suppressions/global (the installation's, admins only). */
export function Suppressions() {
  const [global] = useRoute('/suppressions/global');
  const access = useGlobalAccess();
  const can = useCan();
  const scope: Scope = global && access.read ? 'global' : 'channel';
  return (
    <section>
      <h1>Suppressions</h1>
      <p class="muted">
        A suppressed address receives no broadcast, transactional or confirmation email. Hard bounces and complaints are added to the channel's list on their
        own.
      </p>
      {access.read && (
        <nav class="suppressions-tabs" aria-label="Suppression lists">
          <Link href="/suppressions" aria-current={scope === 'channel' ? 'page' : undefined}>
            This channel
          </Link>
          <Link href="/suppressions/global" aria-current={scope === 'global' ? 'page' : undefined}>
            Installation-wide
          </Link>
        </nav>
      )}
      {global && !access.read && <ErrorMessage message="The installation-wide list is for admins only." />}
      {scope === 'channel' && <CheckAddress />}
      <SuppressionList key={scope} scope={scope} writable={scope === 'global' ? access.write : can('suppressions_write')} />
    </section>
  );
}

function SuppressionList({ scope, writable }: { scope: Scope; writable: boolean }) {
  const path = PATH[scope];
  const [draft, setDraft] = useState('');
  const [email, setEmail] = useState('');
  const [page, setPage] = useState(1);
  const result = useResource(() => api<Schemas['SuppressionList']>('GET', `${path}.json`, { query: { email, page } }), [path, email, page]);
  const action = useAction();
  const p = result.data?.pagination;
  const rows = result.data?.suppressions ?? [];
  const label = scope === 'global' ? 'installation-wide list' : "channel's list";

  async function remove(address: string) {
    if (!window.confirm(`Take ${address} off the ${label}?`)) return;
    if (await action.run(() => api('DELETE', `${path}.json`, { body: { email: address } }), `${address} is off the ${label}.`)) result.reload();
  }

  return (
    <>
      <h2>{scope === 'global' ? 'Installation-wide list' : "This channel's list"}</h2>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setEmail(draft.trim());
        }}
      >
        <Field label="Email contains">
          <input type="search" name="suppression_filter" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Search
          </button>
        </div>
      </form>
      {result.error && <ErrorMessage message={result.error} />}
      {result.loading && !result.data && <Loading />}
      {p && (
        <p class="muted small" aria-live="polite" data-total={p.total}>
          {p.total === 0 ? 'No suppressed addresses' : `${formatNumber(p.from)}–${formatNumber(p.to)} of ${formatNumber(p.total)} suppressed addresses`}
        </p>
      )}
      {result.data && rows.length === 0 && (
        <Empty>{email !== '' ? 'No suppressed address matches: change or clear the search.' : 'Nobody is suppressed here yet.'}</Empty>
      )}
      <Feedback action={action} />
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="suppressions">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Reason</th>
                <th scope="col">Added</th>
                {writable && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.email} data-email={s.email}>
                  <td>{s.email}</td>
                  <td>
                    <span class={`badge badge-${s.reason}`}>{s.reason}</span>
                  </td>
                  <td class="small">{formatTime(s.created_at)}</td>
                  {writable && (
                    <td>
                      <button type="button" class="danger" disabled={action.busy} onClick={() => void remove(s.email)} aria-label={`Remove ${s.email}`}>
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {p && p.total_pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={p.current <= 1} onClick={() => setPage(p.current - 1)}>
            Previous
          </button>
          <span>
            Page {formatNumber(p.current)} of {formatNumber(p.total_pages)}
          </span>
          <button type="button" disabled={p.current >= p.total_pages} onClick={() => setPage(p.current + 1)}>
            Next
          </button>
        </nav>
      )}
      {writable && <AddOne path={path} label={label} onChanged={result.reload} />}
      {writable && <BulkPaste path={path} label={label} onChanged={result.reload} />}
    </>
  );
}

/** One address (201 added, 200 already there: the entry is kept either way); the API's 422 shows under the field. */
function AddOne({ path, label, onChanged }: { path: string; label: string; onChanged(): void }) {
  const [email, setEmail] = useState('');
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const sent = email;
    if (await action.run(() => api<Schemas['Suppression']>('POST', `${path}.json`, { body: { email: sent } }), `${sent.trim()} is on the ${label}.`)) {
      setEmail('');
      onChanged();
    }
  }
  return (
    <form class="panel stack" onSubmit={submit} aria-label="Add an address">
      <h3>Add an address</h3>
      <Field label="Email address">
        <input
          type="text"
          name="suppression_email"
          autoComplete="off"
          value={email}
          aria-invalid={action.error !== undefined ? 'true' : undefined}
          aria-describedby="suppression-add-feedback"
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </Field>
      <div id="suppression-add-feedback">
        <Feedback action={action} />
      </div>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </div>
    </form>
  );
}

type BulkAnswer = { kind: 'add'; body: Schemas['SuppressionBulkAdded'] } | { kind: 'remove'; body: Schemas['SuppressionBulkRemoved'] };

/** A paste of addresses, added or removed with one bulk request; the API's counts are shown as they come. */
function BulkPaste({ path, label, onChanged }: { path: string; label: string; onChanged(): void }) {
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<BulkAnswer | undefined>(undefined);
  const action = useAction();
  const emails = pastedAddresses(text);

  async function send(kind: 'add' | 'remove') {
    setAnswer(undefined);
    const ok = await action.run(async () => {
      if (kind === 'add') setAnswer({ kind, body: await api<Schemas['SuppressionBulkAdded']>('POST', `${path}/bulk.json`, { body: { emails } }) });
      else setAnswer({ kind, body: await api<Schemas['SuppressionBulkRemoved']>('DELETE', `${path}/bulk.json`, { body: { emails } }) });
    });
    if (ok) onChanged();
  }

  return (
    <form
      class="panel stack"
      aria-label="Paste addresses"
      onSubmit={(e) => {
        e.preventDefault();
        void send('add');
      }}
    >
      <h3>Paste addresses</h3>
      <Field label="Addresses" hint={`One per line or separated by commas; at most ${formatNumber(BULK_LIMIT)} at once.`}>
        <textarea name="suppression_bulk" rows={6} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <p class="muted small" aria-live="polite">
        {formatNumber(emails.length)} {emails.length === 1 ? 'entry' : 'entries'}
      </p>
      <Feedback action={action} />
      {answer && (
        <div class="notice suppressions-result" role="status">
          {answer.kind === 'add' ? (
            <dl class="facts">
              <dt>Added</dt>
              <dd data-count="added">{formatNumber(answer.body.added)}</dd>
              <dt>Already suppressed</dt>
              <dd data-count="already_suppressed">{formatNumber(answer.body.already_suppressed)}</dd>
              <dt>Invalid</dt>
              <dd data-count="invalid">{formatNumber(answer.body.invalid)}</dd>
            </dl>
          ) : (
            <dl class="facts">
              <dt>Removed</dt>
              <dd data-count="removed">{formatNumber(answer.body.removed)}</dd>
              <dt>Not found</dt>
              <dd data-count="not_found">{formatNumber(answer.body.not_found)}</dd>
            </dl>
          )}
          {answer.body.invalid_emails.length > 0 && <p class="small">Not addresses: {answer.body.invalid_emails.join(', ')}</p>}
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || emails.length === 0}>
          Add all to the {label}
        </button>
        <button type="button" class="danger" disabled={action.busy || emails.length === 0} onClick={() => void send('remove')}>
          Remove all from the {label}
        </button>
      </div>
    </form>
  );
}

/** check.json: whether one address is stopped, by which list and why (the channel's list first). */
function CheckAddress() {
  const [email, setEmail] = useState('');
  const [answer, setAnswer] = useState<Schemas['SuppressionCheck'] | undefined>(undefined);
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    setAnswer(undefined);
    await action.run(async () => setAnswer(await api<Schemas['SuppressionCheck']>('GET', '/suppressions/check.json', { query: { email } })));
  }
  return (
    <form class="panel stack" onSubmit={submit} aria-label="Check an address">
      <h2>Check an address</h2>
      <div class="row">
        <Field label="Address to check">
          <input type="text" name="suppression_check" autoComplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
      </div>
      <Feedback action={action} />
      {answer && (
        <p class="notice" role="status" data-suppressed={String(answer.suppressed)}>
          {answer.suppressed
            ? `${answer.email} is suppressed by the ${answer.scope === 'global' ? 'installation-wide' : "channel's"} list (reason: ${answer.reason ?? 'unknown'}).`
            : `${answer.email} is not suppressed: it can be sent to.`}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Check
        </button>
      </div>
    </form>
  );
}
