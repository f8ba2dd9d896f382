import { useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Broadcast } from '../api';
import { ErrorMessage, Feedback, Field, formatTime, Loading, Progress, StatusBadge } from '../components';
import { useAction, useResource } from '../hooks';
import { appLocale } from '../locale';
import { useCan } from '../session';
import { MOVING, POLL_MS } from './broadcasts';
import { Preview } from './preview';

/** The API's transitions: which buttons a status offers (the API still decides, and its error shows). */
const ACTIONS: ReadonlyArray<{ path: string; label: string; from: readonly string[]; done: string; confirm?: string }> = [
  { path: 'send_broadcast', label: 'Send now', from: ['draft', 'failed'], done: 'Queued for sending.', confirm: 'Send this broadcast to its recipients now?' },
  { path: 'cancel_schedule', label: 'Cancel schedule', from: ['future_scheduled'], done: 'Back to draft.' },
  { path: 'pause_broadcast', label: 'Pause', from: ['scheduled', 'queueing', 'sending'], done: 'Paused.' },
  { path: 'resume_broadcast', label: 'Resume', from: ['paused'], done: 'Sending again.' },
  {
    path: 'abort_broadcast',
    label: 'Abort',
    from: ['scheduled', 'queueing', 'sending', 'paused'],
    done: 'Aborted.',
    confirm: 'Stop sending this broadcast for good?',
  },
];
/** What a guard pause names (docs/reputation-guard.md), as the notice says it. */
const PAUSE_REASONS: Record<NonNullable<Broadcast['pause_reason']>, string> = { hard_bounce_rate: 'hard bounce rate', complaint_rate: 'complaint rate' };

const EDITABLE = ['draft', 'future_scheduled'];

export function BroadcastPage() {
  const id = Number(useParams<{ id: string }>().id);
  const can = useCan();
  const [, navigate] = useLocation();
  const broadcast = useResource(
    () => api<Broadcast>('GET', `/broadcasts/${id}`),
    [id],
    (b) => (MOVING.has(b.status) ? POLL_MS : 0),
  );
  const action = useAction();

  if (broadcast.error && !broadcast.data) return <ErrorMessage message={broadcast.error} />;
  if (!broadcast.data) return <Loading />;
  const b = broadcast.data;
  const writable = can('broadcasts_write');

  async function act(path: string, done: string, confirmText?: string) {
    if (confirmText && !window.confirm(confirmText)) return;
    if (await action.run(() => api('POST', `/broadcasts/${id}/${path}`), done)) broadcast.reload();
  }
  async function remove() {
    if (!window.confirm('Delete this broadcast?')) return;
    if (await action.run(() => api('DELETE', `/broadcasts/${id}`))) navigate('/broadcasts');
  }

  return (
    <section>
      <p>
        <Link href="/broadcasts">← Broadcasts</Link>
      </p>
      <div class="title-row">
        <h1>{b.name || b.subject}</h1>
        <StatusBadge status={b.status} />
      </div>
      {b.status === 'paused' && b.pause_reason && (
        <p class="error pause-reason" role="alert">
          Paused by the reputation guard: the {PAUSE_REASONS[b.pause_reason]} went over the channel's limit. Nothing more goes out until someone resumes it (see
          Channel settings for the limits).
        </p>
      )}
      <div class="live" aria-live="polite" data-status={b.status}>
        <Progress broadcast={b} />
        <span class="muted small">{MOVING.has(b.status) ? 'Updating live…' : ''}</span>
      </div>
      <dl class="facts">
        <dt>Subject</dt>
        <dd>{b.subject}</dd>
        <dt>Recipients</dt>
        <dd>{b.total_recipients}</dd>
        <dt>Scheduled</dt>
        <dd>{b.scheduled_send_at ? `${formatTime(b.scheduled_send_at)} (${b.scheduled_timezone ?? 'UTC'})` : '—'}</dd>
        <dt>Sent</dt>
        <dd>{formatTime(b.sent_at)}</dd>
        <dt>Tracking</dt>
        <dd>
          {[b.track_opens && 'opens', b.track_clicks && 'clicks'].filter(Boolean).join(' and ') || 'off'}
          {b.include_unsubscribe_link ? ', unsubscribe link' : ''}
        </dd>
      </dl>
      <div class="actions" role="group" aria-label="Broadcast actions">
        <Link href={`/broadcasts/${id}/statistics`} class="button">
          Statistics
        </Link>
        {writable && EDITABLE.includes(b.status) && (
          <Link href={`/broadcasts/${id}/edit`} class="button">
            Edit
          </Link>
        )}
        {writable &&
          ACTIONS.filter((a) => a.from.includes(b.status)).map((a) => (
            <button key={a.path} type="button" disabled={action.busy} onClick={() => act(a.path, a.done, a.confirm)}>
              {a.label}
            </button>
          ))}
        {writable && EDITABLE.includes(b.status) && (
          <button type="button" class="danger" disabled={action.busy} onClick={remove}>
            Delete
          </button>
        )}
      </div>
      <Feedback action={action} />
      {writable && EDITABLE.includes(b.status) && <Schedule broadcast={b} onDone={broadcast.reload} />}
      <Preview broadcastId={id} />
    </section>
  );
}

/** The browser's time zone, asked of a formatter in the app's locale (the default one may be refused: docs/dashboard.md, "Locale"). */
function browserTimeZone(): string {
  try {
    return new Intl.DateTimeFormat(appLocale()).resolvedOptions().timeZone ?? 'UTC';
  } catch {
    return 'UTC';
  }
}

function timeZones(): string[] {
  const supported = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return supported.includes('UTC') ? supported : ['UTC', ...supported];
}

/** Wall-clock time in the chosen zone: sent without an offset, so the API reads it in scheduled_timezone. */
function Schedule({ broadcast, onDone }: { broadcast: Broadcast; onDone(): void }) {
  const [zones] = useState(timeZones);
  const [zone, setZone] = useState(broadcast.scheduled_timezone ?? browserTimeZone());
  const [when, setWhen] = useState('');
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    const ok = await action.run(
      () =>
        api('POST', `/broadcasts/${broadcast.id}/schedule_broadcast`, {
          body: { broadcast: { scheduled_send_at: when.length === 16 ? `${when}:00` : when, scheduled_timezone: zone } },
        }),
      'Scheduled.',
    );
    if (ok) onDone();
  }

  return (
    <form class="panel stack" onSubmit={submit}>
      <h2>Schedule</h2>
      <div class="row">
        <Field label="Send at (local time in the zone)">
          <input type="datetime-local" name="scheduled_send_at" required value={when} onInput={(e) => setWhen(e.currentTarget.value)} />
        </Field>
        <Field label="Time zone">
          <input name="scheduled_timezone" list="time-zones" required value={zone} onInput={(e) => setZone(e.currentTarget.value)} />
          <datalist id="time-zones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </Field>
      </div>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {broadcast.status === 'future_scheduled' ? 'Reschedule' : 'Schedule'}
        </button>
      </div>
    </form>
  );
}
