import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, formatNumber, Loading, Pager } from '../components';
import { useResource } from '../hooks';
import { useCan } from '../session';
import { EmailServerForm, type EmailServer } from './email-server-form';

const LIMIT = 25;

const TLS_LABELS: Record<EmailServer['tls'], string> = { starttls: 'STARTTLS', implicit: 'Implicit TLS', none: 'None' };
export const tlsLabel = (tls: EmailServer['tls']): string => TLS_LABELS[tls] ?? tls;

/** The server's limits in one line, e.g. "10/s · 1,000/day"; none set: "No limit". */
export function limitsSummary(s: EmailServer): string {
  const parts = (
    [
      [s.max_per_second, 's'],
      [s.max_per_minute, 'min'],
      [s.max_per_hour, 'h'],
      [s.max_per_day, 'day'],
    ] as const
  )
    .filter(([value]) => value !== null && value !== undefined)
    .map(([value, unit]) => `${formatNumber(value!)}/${unit}`);
  return parts.length === 0 ? 'No limit' : parts.join(' · ');
}

export const serverTitle = (s: EmailServer): string => s.name || `${s.host}:${s.port}`;

/** The channel's email servers, one page at a time (docs/dashboard.md, "Email servers"). */
export function EmailServers() {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const list = useResource(() => api<Schemas['EmailServerList']>('GET', '/email_servers', { query: { limit: LIMIT, offset } }), [offset]);
  const servers = list.data?.data ?? [];
  const writable = can('email_servers_write');

  return (
    <section>
      <div class="title-row">
        <h1>Email servers</h1>
        {writable && (
          <Link href="/email-servers/new" class="button primary">
            New email server
          </Link>
        )}
      </div>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && servers.length === 0 && offset === 0 && (
        <Empty>
          No email servers yet: nothing can be sent until one is added.{' '}
          {writable
            ? 'Add one with New email server (host, port, TLS and credentials of your SMTP provider).'
            : 'Ask someone with the email_servers_write permission to add one.'}
        </Empty>
      )}
      {servers.length > 0 && (
        <div class="table-wrap">
          <table class="email-servers">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Host</th>
                <th scope="col">TLS</th>
                <th scope="col">Active</th>
                <th scope="col">Limits</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((s) => (
                <tr key={s.id} data-server={s.id}>
                  <td>
                    <Link href={`/email-servers/${s.id}`}>{serverTitle(s)}</Link>
                  </td>
                  <td class="url">
                    {s.host}:{s.port}
                  </td>
                  <td>{tlsLabel(s.tls)}</td>
                  <td>{s.active ? 'yes' : 'no'}</td>
                  <td class="small">{limitsSummary(s)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={servers.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}

/** A new server's form; once the API created it, its page (to test the connection, make a DKIM key). */
export function NewEmailServer() {
  const [, navigate] = useLocation();
  return (
    <section>
      <p>
        <Link href="/email-servers">← Email servers</Link>
      </p>
      <h1>New email server</h1>
      <EmailServerForm
        submitLabel="Create email server"
        onSubmit={async (body) => {
          const created = await api<EmailServer>('POST', '/email_servers', { body: { email_server: body } });
          navigate(`/email-servers/${created.id}`);
        }}
      />
    </section>
  );
}
