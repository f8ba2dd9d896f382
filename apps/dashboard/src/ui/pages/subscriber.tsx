import { useState } from 'preact/hooks';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { api, type Subscriber } from '../api';
import { ErrorMessage, Feedback, Field, formatTime, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

/** One subscriber (found by email) and what can be done to it. */
export function SubscriberPage() {
  const email = new URLSearchParams(useSearch()).get('email') ?? '';
  const can = useCan();
  const [, navigate] = useLocation();
  const subscriber = useResource(() => api<Subscriber>('GET', '/subscribers/find.json', { query: { email } }), [email]);
  const action = useAction();
  const [tag, setTag] = useState('');

  if (subscriber.error && !subscriber.data) return <ErrorMessage message={subscriber.error} />;
  if (!subscriber.data) return <Loading />;
  const s = subscriber.data;

  async function act(path: string, done: string, method = 'POST', extra: Record<string, unknown> = {}) {
    let updated: Subscriber | undefined;
    const ok = await action.run(async () => {
      updated = await api<Subscriber>(method, `/subscribers/${path}`, { body: { email: s.email, ...extra } });
    }, done);
    if (ok) subscriber.reload();
    return ok ? updated : undefined;
  }
  async function redact() {
    if (!window.confirm(`Redact ${s.email}? Their address, names and data are erased for good.`)) return;
    if (await action.run(() => api('POST', '/subscribers/redact.json', { body: { email: s.email } }))) navigate('/subscribers');
  }
  async function addTag(event: Event) {
    event.preventDefault();
    if (await act('add_tag.json', `Tagged ${tag}.`, 'POST', { tags: [tag.trim()] })) setTag('');
  }
  const writable = can('subscribers_write');

  return (
    <section>
      <p>
        <Link href="/subscribers">← Subscribers</Link>
      </p>
      <h1>{s.email}</h1>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{[s.first_name, s.last_name].filter(Boolean).join(' ') || '—'}</dd>
        <dt>Status</dt>
        <dd data-active={String(s.is_active)}>{s.is_active ? 'active' : s.unsubscribed_at ? `unsubscribed ${formatTime(s.unsubscribed_at)}` : 'inactive'}</dd>
        <dt>Confirmation</dt>
        <dd>{s.confirmation_status}</dd>
        <dt>Source</dt>
        <dd>{s.source}</dd>
        <dt>Subscribed</dt>
        <dd>{formatTime(s.subscribed_at)}</dd>
        <dt>Tags</dt>
        <dd>
          {s.tags.length === 0
            ? 'none'
            : s.tags.map((t) => (
                <span key={t} class="tag">
                  {t}
                  {writable && (
                    <button
                      type="button"
                      class="link"
                      aria-label={`Remove tag ${t}`}
                      onClick={() => act('remove_tag.json', `Removed ${t}.`, 'DELETE', { tags: [t] })}
                    >
                      ×
                    </button>
                  )}
                </span>
              ))}
        </dd>
        <dt>Custom data</dt>
        <dd>
          <code>{JSON.stringify(s.custom_data)}</code>
        </dd>
      </dl>
      {writable && (
        <>
          <div class="actions" role="group" aria-label="Subscriber actions">
            {s.is_active ? (
              <>
                <button type="button" onClick={() => act('deactivate.json', 'Deactivated.')}>
                  Deactivate
                </button>
                <button type="button" onClick={() => act('unsubscribe.json', 'Unsubscribed.')}>
                  Unsubscribe
                </button>
              </>
            ) : s.unsubscribed_at ? (
              <button type="button" onClick={() => act('resubscribe.json', 'Resubscribed.')}>
                Resubscribe
              </button>
            ) : (
              <button type="button" onClick={() => act('activate.json', 'Activated.')}>
                Activate
              </button>
            )}
            <button type="button" class="danger" onClick={redact}>
              Redact (GDPR)
            </button>
          </div>
          <form class="row" onSubmit={addTag}>
            <Field label="Add a tag">
              <input name="tag" required value={tag} onInput={(e) => setTag(e.currentTarget.value)} />
            </Field>
            <div class="actions">
              <button type="submit" disabled={action.busy}>
                Add tag
              </button>
            </div>
          </form>
        </>
      )}
      <Feedback action={action} />
    </section>
  );
}
