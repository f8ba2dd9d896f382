import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schemas, type WebhookEndpoint } from '../api';
import { Empty, ErrorMessage, formatTime, Loading, Pager } from '../components';
import { useResource } from '../hooks';
import { useCan } from '../session';
import { WebhookForm } from './webhook-form';

const LIMIT = 25;

export function Webhooks() {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const list = useResource(() => api<Schemas['WebhookEndpointList']>('GET', '/webhook_endpoints', { query: { limit: LIMIT, offset } }), [offset]);
  const endpoints = list.data?.data ?? [];

  return (
    <section>
      <div class="title-row">
        <h1>Webhook endpoints</h1>
        {can('webhook_endpoints_write') && !creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New endpoint
          </button>
        )}
      </div>
      {secret && (
        <div class="notice" role="status">
          Signing secret (shown once, keep it to verify deliveries): <code class="secret">{secret}</code>
        </div>
      )}
      {creating && (
        <div class="panel">
          <h2>New endpoint</h2>
          <WebhookForm
            initial={{ url: '', description: '', event_types: [], active: true }}
            submitLabel="Create endpoint"
            onSubmit={async (input) => {
              const created = await api<WebhookEndpoint>('POST', '/webhook_endpoints', { body: { webhook_endpoint: input } });
              setSecret(created.secret);
              setCreating(false);
              list.reload();
            }}
          />
          <button type="button" onClick={() => setCreating(false)}>
            Cancel
          </button>
        </div>
      )}
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && endpoints.length === 0 && offset === 0 && (
        <Empty>
          No webhook endpoints yet.{' '}
          {can('webhook_endpoints_write')
            ? 'Add one with New endpoint to receive signed events (sends, opens, clicks, unsubscribes) at your URL.'
            : 'Ask someone with the webhook_endpoints_write permission to add one.'}
        </Empty>
      )}
      {endpoints.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Active</th>
                <th scope="col">Last answer</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id}>
                  <td class="url">
                    <Link href={`/webhooks/${e.id}`}>{e.url}</Link>
                    {e.description && <div class="muted small">{e.description}</div>}
                  </td>
                  <td class="small">{e.event_types.length}</td>
                  <td>{e.active ? 'yes' : 'no'}</td>
                  <td class="small">
                    {e.last_response_code ?? '—'} {e.last_sent_at ? `at ${formatTime(e.last_sent_at)}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={endpoints.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}
