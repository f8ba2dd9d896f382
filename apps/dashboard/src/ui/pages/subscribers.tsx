import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatTime, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

interface Filters {
  email: string;
  is_active: '' | 'true' | 'false';
  confirmation_status: '' | 'confirmed' | 'unconfirmed';
  source: string;
  tags: string;
  custom_data: string;
  created_after: string;
  created_before: string;
}
const NO_FILTERS: Filters = { email: '', is_active: '', confirmation_status: '', source: '', tags: '', custom_data: '', created_after: '', created_before: '' };

const list = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

/** The list's query: tags[] repeated, custom_data[key]=value per pair, dates as the start of the day in UTC. */
function queryOf(filters: Filters, page: number): Record<string, string | string[] | number> {
  const query: Record<string, string | string[] | number> = { page };
  for (const key of ['email', 'is_active', 'confirmation_status', 'source'] as const) if (filters[key] !== '') query[key] = filters[key].trim();
  if (filters.created_after) query.created_after = `${filters.created_after}T00:00:00Z`;
  if (filters.created_before) query.created_before = `${filters.created_before}T23:59:59Z`;
  const tags = list(filters.tags);
  if (tags.length > 0) query['tags[]'] = tags;
  for (const pair of list(filters.custom_data)) {
    const at = pair.indexOf('=');
    if (at > 0) query[`custom_data[${pair.slice(0, at).trim()}]`] = pair.slice(at + 1).trim();
  }
  return query;
}

export const subscriberHref = (email: string) => `/subscribers/show?${new URLSearchParams({ email })}`;

export function Subscribers() {
  const can = useCan();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const result = useResource(() => api<Schemas['SubscriberList']>('GET', '/subscribers.json', { query: queryOf(filters, page) }), [filters, page]);
  const filtered = Object.values(filters).some((v) => v !== '');

  const input = (key: keyof Filters) => ({
    name: key,
    value: draft[key],
    onInput: (e: Event) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  function apply(event: Event) {
    event.preventDefault();
    setPage(1);
    setFilters(draft);
  }
  const p = result.data?.pagination;

  return (
    <section>
      <h1>Subscribers</h1>
      <form class="filters" role="search" onSubmit={apply}>
        <Field label="Email contains">
          <input type="search" {...input('email')} />
        </Field>
        <Field label="Status">
          <select {...input('is_active')} onChange={(e) => setDraft({ ...draft, is_active: e.currentTarget.value as Filters['is_active'] })}>
            <option value="">Any</option>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
          </select>
        </Field>
        <Field label="Confirmation">
          <select
            {...input('confirmation_status')}
            onChange={(e) => setDraft({ ...draft, confirmation_status: e.currentTarget.value as Filters['confirmation_status'] })}
          >
            <option value="">Any</option>
            <option value="confirmed">Confirmed</option>
            <option value="unconfirmed">Unconfirmed</option>
          </select>
        </Field>
        <Field label="Source">
          <input {...input('source')} />
        </Field>
        <Field label="Tags (all of, comma-separated)">
          <input {...input('tags')} />
        </Field>
        <Field label="Custom data (key=value, …)">
          <input {...input('custom_data')} />
        </Field>
        <Field label="Created on or after">
          <input type="date" {...input('created_after')} />
        </Field>
        <Field label="Created on or before">
          <input type="date" {...input('created_before')} />
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
              setPage(1);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {result.error && <ErrorMessage message={result.error} />}
      {result.loading && !result.data && <Loading />}
      {p && (
        <p class="muted small" aria-live="polite" data-total={p.total}>
          {p.total === 0 ? 'No subscribers' : `${p.from}–${p.to} of ${p.total} subscribers`}
        </p>
      )}
      {result.data && result.data.subscribers.length === 0 && (
        <Empty>
          {filtered
            ? 'No subscriber matches these filters: loosen or clear them.'
            : 'No subscribers yet: add one below, import them with `npm run -s admin -- import`, or create them through the API.'}
        </Empty>
      )}
      {result.data && result.data.subscribers.length > 0 && (
        <div class="table-wrap">
          <table class="subscribers">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Tags</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {result.data.subscribers.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link href={subscriberHref(s.email)}>{s.email}</Link>
                  </td>
                  <td>{[s.first_name, s.last_name].filter(Boolean).join(' ')}</td>
                  <td>{s.is_active ? 'active' : s.unsubscribed_at ? 'unsubscribed' : 'inactive'}</td>
                  <td>{s.tags.join(', ')}</td>
                  <td class="small">{formatTime(s.created_at)}</td>
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
            Page {p.current} of {p.total_pages}
          </span>
          <button type="button" disabled={p.current >= p.total_pages} onClick={() => setPage(p.current + 1)}>
            Next
          </button>
        </nav>
      )}
      {can('subscribers_write') && <AddSubscriber onAdded={result.reload} />}
    </section>
  );
}

function AddSubscriber({ onAdded }: { onAdded(): void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [tags, setTags] = useState('');
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const body = { subscriber: { email, ...(firstName ? { first_name: firstName } : {}), tags: list(tags) } };
    if (await action.run(() => api('POST', '/subscribers.json', { body }), `Added ${email}.`)) {
      setEmail('');
      setFirstName('');
      setTags('');
      onAdded();
    }
  }
  return (
    <form class="panel stack" onSubmit={submit}>
      <h2>Add a subscriber</h2>
      <div class="row">
        <Field label="Email">
          <input type="email" name="new_email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="First name">
          <input name="new_first_name" value={firstName} onInput={(e) => setFirstName(e.currentTarget.value)} />
        </Field>
        <Field label="Tags (comma-separated)">
          <input name="new_tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </Field>
      </div>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </div>
    </form>
  );
}
