import { useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Schemas, type Segment } from '../api';
import { Empty, ErrorMessage, Feedback, formatNumber, formatTime, Loading, Pager } from '../components';
import { useAction, useResource } from '../hooks';
import { describeRule, fromApiRule } from '../segment-rules';
import { useCan } from '../session';
import { subscriberHref } from './subscribers';
import { bodyOf, SegmentForm } from './segment-form';

/** The API's page of members (docs/segments.md). */
const PAGE_SIZE = 250;

/**
 * A segment's page (docs/dashboard.md, "Segments"): its rules in words, the member count and one
 * page of members as one GET answers them, edit in place (the builder with the live count) and
 * delete (the API's 422 when a scheduled or sending broadcast or a sequence still uses it).
 */
export function SegmentPage() {
  const id = Number(useParams<{ id: string }>().id);
  const can = useCan();
  const [, navigate] = useLocation();
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState(false);
  const segment = useResource(() => api<Schemas['SegmentWithMembers']>('GET', `/segments/${id}.json`, { query: { page } }), [id, page]);
  const action = useAction();
  const writable = can('segments_write');

  if (segment.error && !segment.data) return <ErrorMessage message={segment.error} />;
  if (!segment.data) return <Loading />;
  const s = segment.data;
  const members = s.subscribers;

  async function remove() {
    if (!window.confirm(`Delete the segment “${s.name}”? Broadcasts drafted for it will no longer reach its members.`)) return;
    if (await action.run(() => api('DELETE', `/segments/${id}`))) navigate('/segments');
  }

  return (
    <section>
      <p>
        <Link href="/segments">← Segments</Link>
      </p>
      <h1>{s.name}</h1>
      {s.description && <p class="muted">{s.description}</p>}
      {writable && !editing && (
        <div class="actions" role="group" aria-label="Segment actions">
          <button type="button" disabled={action.busy} onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" class="danger" disabled={action.busy} onClick={remove}>
            Delete
          </button>
        </div>
      )}
      <Feedback action={action} />
      {editing ? (
        <div class="panel">
          <h2>Edit segment</h2>
          <SegmentForm
            initial={{ name: s.name, description: s.description ?? '', match: s.match, rows: s.rules.map(fromApiRule) }}
            submitLabel="Save segment"
            onSubmit={async (input) => {
              await api<Segment>('PATCH', `/segments/${id}`, { body: bodyOf(input) });
              setEditing(false);
              setPage(1);
              segment.reload();
            }}
            onCancel={() => setEditing(false)}
          />
        </div>
      ) : (
        <>
          <h2>Rules</h2>
          {s.rules.length === 0 ? (
            <p>No rules: every subscriber of the channel.</p>
          ) : (
            <>
              <p>Subscribers who match {s.match === 'all' ? 'all' : 'any'} of:</p>
              <ul class="segment-rule-list">
                {s.rules.map((rule, i) => (
                  <li key={i}>{describeRule(rule)}</li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <h2>Members</h2>
      <p class="segment-members-count" aria-live="polite">
        <strong>{formatNumber(s.subscribers_count)}</strong> {s.subscribers_count === 1 ? 'subscriber matches' : 'subscribers match'} now (inactive and
        unconfirmed ones included; a broadcast sends only to those it may).
      </p>
      {segment.error && <ErrorMessage message={segment.error} />}
      {members.length === 0 && page === 1 && <Empty>No subscriber matches these rules now.</Empty>}
      {members.length > 0 && (
        <div class="table-wrap">
          <table class="segment-members">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Confirmation</th>
                <th scope="col">Subscribed</th>
              </tr>
            </thead>
            <tbody>
              {members.map((m) => (
                <tr key={m.id}>
                  <td>{can('subscribers_read') ? <Link href={subscriberHref(m.email)}>{m.email}</Link> : m.email}</td>
                  <td>{[m.first_name, m.last_name].filter(Boolean).join(' ') || '—'}</td>
                  <td>{m.is_active ? 'active' : 'inactive'}</td>
                  <td>{m.confirmation_status}</td>
                  <td class="small">{formatTime(m.subscribed_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        offset={(page - 1) * PAGE_SIZE}
        limit={PAGE_SIZE}
        count={members.length}
        total={s.pagination.total}
        onChange={(offset) => setPage(Math.floor(offset / PAGE_SIZE) + 1)}
      />
    </section>
  );
}
