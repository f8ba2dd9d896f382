import { useState } from 'preact/hooks';
import { Link, useParams } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, Field, formatNumber, formatTime, Loading, Pager, StatusBadge } from '../components';
import { useResource } from '../hooks';

const LIMIT = 25;
const STATUSES = ['queued', 'awaiting_confirmation', 'sent', 'delivered', 'bounced', 'failed', 'suppressed'] as const;
/** A queued transactional is refreshed until it settles, so its detail follows the dispatcher. */
const POLL_MS = 2000;

interface Filters {
  status: string;
  email: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { status: '', email: '', from: '', to: '' };

/**
 * The log's query (docs/dashboard.md, Transactionals): the dates are days in the browser's time
 * zone, sent as the instants that begin the first and end the last, so "to" includes its day.
 */
export function transactionalQuery(filters: Filters, offset: number): Record<string, string | number> {
  const query: Record<string, string | number> = { limit: LIMIT, offset };
  if (filters.status !== '') query.status = filters.status;
  if (filters.email.trim() !== '') query.email = filters.email.trim();
  if (filters.from !== '') query.created_after = new Date(`${filters.from}T00:00:00`).toISOString();
  if (filters.to !== '') query.created_before = new Date(`${filters.to}T23:59:59.999`).toISOString();
  return query;
}

/** /transactionals: the channel's log, newest first, one page of 25 per call. */
export function Transactionals() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const list = useResource(
    () => api<Schemas['TransactionalList']>('GET', '/transactionals.json', { query: transactionalQuery(filters, offset) }),
    [filters, offset],
  );
  const rows = list.data?.data ?? [];
  const filtered = Object.values(filters).some((v) => v !== '');
  const input = (key: keyof Filters) => ({
    name: `transactional_${key}`,
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <section>
      <h1>Transactional email</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setOffset(0);
          setFilters(draft);
        }}
      >
        <Field label="Status">
          <select {...input('status')} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Recipient contains">
          <input type="search" {...input('email')} />
        </Field>
        <Field label="Created on or after">
          <input type="date" {...input('from')} />
        </Field>
        <Field label="Created on or before">
          <input type="date" {...input('to')} />
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Search
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
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <p class="muted small" aria-live="polite" data-total={list.data.total}>
          {list.data.total === 0 ? 'No transactional emails' : `${formatNumber(list.data.total)} transactional emails`}
        </p>
      )}
      {list.data && rows.length === 0 && offset === 0 && (
        <Empty>
          {filtered
            ? 'No transactional email matches these filters: loosen or clear them.'
            : 'No transactional email yet: they are sent with POST /api/v1/transactionals.json (receipts, password resets…).'}
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="transactionals">
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Sent</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id} data-transactional={t.id}>
                  <td>
                    <Link href={`/transactionals/${t.id}`}>{t.to}</Link>
                  </td>
                  <td>{t.subject}</td>
                  <td>
                    <StatusBadge status={t.status} />
                  </td>
                  <td class="small">{formatTime(t.created_at)}</td>
                  <td class="small">{formatTime(t.sent_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={rows.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}

/** What one event adds to its type: a bounce's or a failure's reason, when its data has one. */
function eventDetail(data: Record<string, unknown>): string {
  const reason = data.bounced_reason ?? data.error ?? data.reason;
  return typeof reason === 'string' && reason !== '' ? reason : '—';
}

/** /transactionals/:id: the detail and its recorded events (two calls, whatever the log's size). */
export function TransactionalPage() {
  const id = Number(useParams<{ id: string }>().id);
  const detail = useResource(
    () => api<Schemas['Transactional']>('GET', `/transactionals/${id}.json`),
    [id],
    (t) => (t.status === 'queued' ? POLL_MS : 0),
  );
  const events = useResource(() => api<Schemas['TransactionalEventList']>('GET', `/transactionals/${id}/events.json`), [id, detail.data?.status]);

  if (detail.error && !detail.data) {
    return (
      <section>
        <p>
          <Link href="/transactionals">← Transactional email</Link>
        </p>
        <ErrorMessage message={detail.error} />
      </section>
    );
  }
  if (!detail.data) return <Loading />;
  const t = detail.data;
  const rows = events.data?.data ?? [];
  return (
    <section>
      <p>
        <Link href="/transactionals">← Transactional email</Link>
      </p>
      <h1>{t.subject}</h1>
      <dl class="facts transactional-facts">
        <dt>To</dt>
        <dd data-field="to">{t.to}</dd>
        <dt>Status</dt>
        <dd data-field="status">
          <StatusBadge status={t.status} />
        </dd>
        <dt>Message-ID</dt>
        <dd data-field="message_id">
          <code>{t.message_id ?? '—'}</code>
        </dd>
        <dt>Created</dt>
        <dd>{formatTime(t.created_at)}</dd>
        <dt>Sent</dt>
        <dd data-field="sent_at">{formatTime(t.sent_at)}</dd>
        <dt>Error</dt>
        <dd data-field="error">{t.error ?? '—'}</dd>
      </dl>
      <h2>Events</h2>
      {events.error && <ErrorMessage message={events.error} />}
      {events.loading && !events.data && <Loading />}
      {events.data && rows.length === 0 && (
        <Empty>
          No events recorded
          {t.status === 'suppressed'
            ? ': the address is suppressed, so nothing was sent.'
            : t.status === 'queued' || t.status === 'awaiting_confirmation'
              ? ' yet.'
              : '.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="transactional-events">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">When</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id} data-event={e.type}>
                  <td>{e.type}</td>
                  <td class="small">{formatTime(e.created_at)}</td>
                  <td class="small">{eventDetail(e.data)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="muted small">Transactional emails are not tracked: opens and clicks are not recorded for them.</p>
    </section>
  );
}
