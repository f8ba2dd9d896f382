import { useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Schemas, type WebhookEndpoint } from '../api';
import { Empty, ErrorMessage, Feedback, formatTime, Loading, Pager } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { inputOf, WebhookForm } from './webhook-form';

const LIMIT = 25;
/** The log refreshes on its own while a delivery is pending (a test, a retry). */
const POLL_MS = 2000;

export function WebhookPage() {
  const id = Number(useParams<{ id: string }>().id);
  const can = useCan();
  const [, navigate] = useLocation();
  const endpoint = useResource(() => api<WebhookEndpoint>('GET', `/webhook_endpoints/${id}`), [id]);
  const [offset, setOffset] = useState(0);
  const deliveries = useResource(
    () => api<Schemas['WebhookDeliveryList']>('GET', `/webhook_endpoints/${id}/deliveries`, { query: { limit: LIMIT, offset } }),
    [id, offset],
    (page) => (page.data.some((d) => d.status === 'pending') ? POLL_MS : 0),
  );
  const action = useAction();

  if (endpoint.error && !endpoint.data) return <ErrorMessage message={endpoint.error} />;
  if (!endpoint.data) return <Loading />;
  const e = endpoint.data;
  const writable = can('webhook_endpoints_write');

  async function test() {
    if (await action.run(() => api('POST', `/webhook_endpoints/${id}/test`, { body: {} }), 'A test.webhook delivery is queued: it shows in the log below.')) {
      deliveries.reload();
    }
  }
  async function remove() {
    if (!window.confirm('Delete this endpoint? Its pending deliveries are cancelled.')) return;
    if (await action.run(() => api('DELETE', `/webhook_endpoints/${id}`))) navigate('/webhooks');
  }
  const rows = deliveries.data?.data ?? [];

  return (
    <section>
      <p>
        <Link href="/webhooks">← Webhook endpoints</Link>
      </p>
      <h1 class="url">{e.url}</h1>
      {writable && (
        <div class="actions" role="group" aria-label="Endpoint actions">
          <button type="button" disabled={action.busy} onClick={test}>
            Send a test event
          </button>
          <button type="button" class="danger" disabled={action.busy} onClick={remove}>
            Delete
          </button>
        </div>
      )}
      <Feedback action={action} />
      <h2>Delivery log</h2>
      {deliveries.error && <ErrorMessage message={deliveries.error} />}
      {deliveries.data && rows.length === 0 && offset === 0 && (
        <Empty>
          No deliveries yet.{' '}
          {writable ? 'Send a test event to check the endpoint answers, or wait for a subscribed event.' : 'They show here as events happen.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Answer</th>
                <th scope="col">Error</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next retry</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} data-delivery={d.id} data-status={d.status}>
                  <td>{d.event_type}</td>
                  <td>
                    <span class={`badge badge-${d.status}`}>{d.status}</span>
                  </td>
                  <td>{d.attempt_number}</td>
                  <td>
                    {d.response_status ?? '—'}
                    {d.response_body && <div class="muted small clip">{d.response_body}</div>}
                  </td>
                  <td class="small">{d.error_message ?? '—'}</td>
                  <td class="small">{formatTime(d.last_attempt_at)}</td>
                  <td class="small">{formatTime(d.next_retry_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={rows.length} total={deliveries.data?.total} onChange={setOffset} />
      <h2>Settings</h2>
      {writable ? (
        <WebhookForm
          key={e.id}
          initial={inputOf(e)}
          submitLabel="Save"
          onSubmit={async (input) => {
            await api('PATCH', `/webhook_endpoints/${id}`, { body: { webhook_endpoint: input } });
            endpoint.reload();
          }}
        />
      ) : (
        <p>Events: {e.event_types.join(', ')}</p>
      )}
      <p class="muted small">
        Created {formatTime(e.created_at)} · retries {e.retries_to_attempt} · {e.active ? 'active' : 'inactive'}
      </p>
    </section>
  );
}
