import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, formatTime, Loading, Pager, Progress, StatusBadge } from '../components';
import { useResource } from '../hooks';
import { useCan, useIdentity } from '../session';

const LIMIT = 25;
/** Statuses that still move on their own: the list and a broadcast's page poll while one shows. */
export const MOVING = new Set(['scheduled', 'queueing', 'sending']);
export const POLL_MS = 1000;

export function Broadcasts() {
  const can = useCan();
  const identity = useIdentity();
  const [offset, setOffset] = useState(0);
  const list = useResource(
    () => api<Schemas['BroadcastList']>('GET', '/broadcasts', { query: { limit: LIMIT, offset } }),
    [offset],
    (page) => (page.data.some((b) => MOVING.has(b.status)) ? POLL_MS : 0),
  );
  const broadcasts = list.data?.data ?? [];

  return (
    <section>
      <div class="title-row">
        <h1>Broadcasts</h1>
        {can('broadcasts_write') && (
          <Link href="/broadcasts/new" class="button primary">
            New broadcast
          </Link>
        )}
      </div>
      <p class="muted">
        The channel's public archive (sent broadcasts marked “archive”):{' '}
        <a class="archive-link" href={`/archive/${encodeURIComponent(identity.channel?.slug ?? '')}`} target="_blank" rel="noopener noreferrer">
          /archive/{identity.channel?.slug ?? ''}
        </a>
      </p>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && broadcasts.length === 0 && offset === 0 && (
        <Empty>
          No broadcasts yet.{' '}
          {can('broadcasts_write') ? (
            <>
              <Link href="/broadcasts/new">Create your first broadcast</Link>, then send it or schedule it.
            </>
          ) : (
            'Ask someone with the broadcasts_write permission to create one.'
          )}
        </Empty>
      )}
      {broadcasts.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col">Scheduled / sent</th>
              </tr>
            </thead>
            <tbody>
              {broadcasts.map((b) => (
                <tr key={b.id} data-broadcast={b.id}>
                  <td>
                    <Link href={`/broadcasts/${b.id}`}>{b.name || b.subject || `Broadcast ${b.id}`}</Link>
                    <div class="muted small">{b.subject}</div>
                  </td>
                  <td>
                    <StatusBadge status={b.status} />
                  </td>
                  <td>
                    <Progress broadcast={b} />
                  </td>
                  <td class="small">{b.sent_at ? formatTime(b.sent_at) : formatTime(b.scheduled_send_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={broadcasts.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}
