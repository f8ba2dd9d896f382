import { useState } from 'preact/hooks';
import { api } from '../api';
import { Empty, ErrorMessage, Field, formatTime, Loading, Pager } from '../components';
import { useResource } from '../hooks';
import { useIdentity } from '../session';

interface AuditEntry {
  id: number;
  occurred_at: string;
  actor: { type: 'user' | 'token' | 'cli'; id: number | null; label: string | null };
  broadcast_channel_id: number | null;
  method: string;
  path: string;
  status: number | null;
  ip: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
}
interface AuditPage {
  data: AuditEntry[];
  pagination: { total: number; limit: number; offset: number; has_more: boolean };
}
interface Filters {
  user_id: string;
  token_id: string;
  channel_id: string;
  action: string;
  since: string;
  until: string;
}
const NO_FILTERS: Filters = { user_id: '', token_id: '', channel_id: '', action: '', since: '', until: '' };
const LIMIT = 50;

/** A datetime-local value (the browser's time zone) as the ISO instant the API takes. */
function instant(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

/** The audit log (sudo users; docs/teams.md, "Audit log"): every write, newest first, filtered and paged by the API. */
export function AuditLog() {
  const identity = useIdentity();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const page = useResource(
    () =>
      api<AuditPage>('GET', '/audit_log', {
        query: { ...filters, since: instant(filters.since), until: instant(filters.until), limit: LIMIT, offset },
      }),
    [filters, offset],
  );
  const channelName = (id: number | null) => (id === null ? 'installation' : (identity.channels?.find((c) => c.id === id)?.name ?? `#${id}`));
  const input = (key: keyof Filters) => ({
    name: `audit_${key}`,
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <section>
      <h1>Audit log</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
          setOffset(0);
        }}
      >
        <Field label="User id">
          <input inputMode="numeric" {...input('user_id')} />
        </Field>
        <Field label="Token id">
          <input inputMode="numeric" {...input('token_id')} />
        </Field>
        <Field label="Channel">
          <select {...input('channel_id')} onChange={(e) => setDraft({ ...draft, channel_id: e.currentTarget.value })}>
            <option value="">Any</option>
            {(identity.channels ?? []).map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Action" hint="An operation (createBroadcast) or METHOD path.">
          <input {...input('action')} />
        </Field>
        <Field label="From">
          <input type="datetime-local" {...input('since')} />
        </Field>
        <Field label="To">
          <input type="datetime-local" {...input('until')} />
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Filter
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
              setOffset(0);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {page.error && <ErrorMessage message={page.error} />}
      {page.loading && !page.data && <Loading />}
      {page.data && (
        <p class="muted small" aria-live="polite" data-total={page.data.pagination.total}>
          {page.data.pagination.total === 1 ? '1 entry' : `${page.data.pagination.total} entries`}
        </p>
      )}
      {page.data && page.data.data.length === 0 && <Empty>No entry matches: every write by a user or a token shows here.</Empty>}
      {page.data && page.data.data.length > 0 && (
        <div class="table-wrap">
          <table class="audit-log">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Channel</th>
                <th scope="col">Action</th>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {page.data.data.map((e) => (
                <tr key={e.id}>
                  <td class="small">{formatTime(e.occurred_at)}</td>
                  <td>
                    {e.actor.label ?? '—'}{' '}
                    <span class="muted small">({e.actor.type === 'cli' ? 'admin CLI' : `${e.actor.type} ${e.actor.id ?? 'deleted'}`})</span>
                  </td>
                  <td>{channelName(e.broadcast_channel_id)}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td class="small clip">
                    {e.method} {e.path}
                  </td>
                  <td>{e.status ?? '—'}</td>
                  <td class="small">{e.ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.data && <Pager offset={offset} limit={LIMIT} count={page.data.data.length} total={page.data.pagination.total} onChange={setOffset} />}
    </section>
  );
}
