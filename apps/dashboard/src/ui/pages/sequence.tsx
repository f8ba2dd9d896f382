import { useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Enrolment, type Schemas, type Sequence, type SequenceStep } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatNumber, formatTime, Loading, StatusBadge } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { AddStep, StepTree, stepName } from './sequence-steps';
import { ActiveBadge } from './sequences';
import type { Choice } from './step-form';

/** A sequence: its state and pause/resume, its step tree, its enrolments, its settings. */
export function SequencePage() {
  const id = Number(useParams<{ id: string }>().id);
  const can = useCan();
  const [, navigate] = useLocation();
  const sequence = useResource(() => api<Sequence>('GET', `/sequences/${id}`), [id]);
  const steps = useResource(() => api<Schemas['SequenceStepList']>('GET', `/sequences/${id}/steps`), [id]);
  // Choices for move_to_sequence steps (and their names in the tree); templates when the token may read them.
  const others = useResource(() => api<Schemas['SequenceList']>('GET', '/sequences', { query: { limit: 100 } }), [id]);
  const templates = useResource(
    () => (can('templates_read') ? api<Schemas['TemplateList']>('GET', '/templates', { query: { limit: 100 } }) : Promise.resolve(undefined)),
    [],
  );
  const action = useAction();

  if (sequence.error && !sequence.data) return <ErrorMessage message={sequence.error} />;
  if (!sequence.data) return <Loading />;
  const s = sequence.data;
  const writable = can('sequences_write');
  const sequenceChoices: Choice[] = (others.data?.data ?? []).map((o) => ({ value: o.id, label: o.label }));
  const templateChoices: Choice[] | undefined = templates.data?.data.map((t) => ({ value: t.id, label: t.label }));
  const stepList = steps.data?.data ?? [];
  const changed = () => {
    steps.reload();
    sequence.reload();
  };

  async function toggle() {
    const done = s.active ? 'Paused: every enrolment waits until the sequence is resumed.' : 'Resumed: waiting subscribers continue, overdue steps at once.';
    if (await action.run(() => api('PATCH', `/sequences/${id}`, { body: { sequence: { active: !s.active } } }), done)) sequence.reload();
  }
  async function remove() {
    if (!window.confirm(`Delete the sequence “${s.label}”? Its steps and enrolments are deleted with it.`)) return;
    if (await action.run(() => api('DELETE', `/sequences/${id}`))) navigate('/sequences');
  }

  return (
    <section>
      <p>
        <Link href="/sequences">← Sequences</Link>
      </p>
      <h1>{s.label}</h1>
      <div class="live" data-active={String(s.active)}>
        <ActiveBadge sequence={s} />
        <span>
          {formatNumber(s.subscribers_count)} {s.subscribers_count === 1 ? 'subscriber' : 'subscribers'} under way · {formatNumber(s.steps_count)}{' '}
          {s.steps_count === 1 ? 'step' : 'steps'}
        </span>
      </div>
      {writable && (
        <div class="actions" role="group" aria-label="Sequence actions">
          <button type="button" class={s.active ? '' : 'primary'} disabled={action.busy} onClick={toggle}>
            {s.active ? 'Pause sequence' : 'Resume sequence'}
          </button>
          <button type="button" class="danger" disabled={action.busy} onClick={remove}>
            Delete sequence
          </button>
        </div>
      )}
      <Feedback action={action} />

      <h2>Steps</h2>
      {steps.error && <ErrorMessage message={steps.error} />}
      {steps.loading && !steps.data && <Loading />}
      {steps.data && (
        <StepTree sequenceId={id} steps={stepList} sequences={sequenceChoices} templates={templateChoices} writable={writable} onChanged={changed} />
      )}
      {steps.data && stepList.length === 1 && (
        <Empty>No steps yet: {writable ? 'add the first one below (a welcome email, for example).' : 'nothing happens to enrolled subscribers yet.'}</Empty>
      )}
      {writable && steps.data && (
        <AddStep sequenceId={id} steps={stepList} sequences={sequenceChoices} templates={templateChoices} writable={writable} onChanged={changed} />
      )}

      {can('subscribers_read') && (
        <Enrolments
          sequenceId={id}
          version={`${s.updated_at}/${s.active}`}
          steps={stepList}
          writable={writable && can('subscribers_write')}
          onChanged={sequence.reload}
        />
      )}

      <h2>Settings</h2>
      {writable ? (
        // Keyed by the sequence, not its updated_at: a save reloads the sequence, and a form
        // remounted by that reload would lose its "Saved." notice (and any edit in progress).
        <SettingsForm key={s.id} sequence={s} onSaved={sequence.reload} />
      ) : (
        <p>
          Opens {s.track_opens ? 'tracked' : 'not tracked'} · clicks {s.track_clicks ? 'tracked' : 'not tracked'} ·{' '}
          {s.use_any_email_server ? 'any email server' : `servers ${s.email_server_ids.join(', ')}`}
        </p>
      )}
      <p class="muted small">
        Created {formatTime(s.created_at)} · updated {formatTime(s.updated_at)}
      </p>
    </section>
  );
}

const STATUSES: Array<Enrolment['status']> = ['active', 'paused', 'busy', 'completed', 'removed', 'error'];
const UNDER_WAY = new Set<Enrolment['status']>(['active', 'paused', 'busy']);
/** The list refreshes on its own while the runtime holds an enrolment in a step. */
const POLL_MS = 2000;

/** The enrolments (list_subscribers: newest first, 10 a page), a status filter, add and remove. */
function Enrolments({
  sequenceId,
  version,
  steps,
  writable,
  onChanged,
}: {
  sequenceId: number;
  /** Changes when the sequence does (pause and resume move every enrolment): the list reloads. */
  version: string;
  steps: SequenceStep[];
  writable: boolean;
  onChanged(): void;
}) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const list = useResource(
    () => api<Schemas['SubscriberSequencePage']>('GET', `/sequences/${sequenceId}/list_subscribers`, { query: { page, status } }),
    [sequenceId, page, status, version],
    (answer) => (answer.subscriber_sequences.some((e) => e.status === 'busy') ? POLL_MS : 0),
  );
  const [email, setEmail] = useState('');
  const [restart, setRestart] = useState(false);
  const action = useAction();
  const rows = list.data?.subscriber_sequences ?? [];
  const p = list.data?.pagination;
  const stepOf = (id: number | null) => {
    if (id === null) return 'path ended';
    const step = steps.find((x) => x.id === id);
    return step ? stepName(step) : `step ${id}`;
  };
  const changed = () => {
    list.reload();
    onChanged();
  };

  async function add(event: Event) {
    event.preventDefault();
    let answer: Enrolment | undefined;
    // 200 with the already_enrolled warning: nothing changed, and the notice says so.
    const notice = () => {
      const warning = answer?.warnings?.find((w) => w.code === 'already_enrolled');
      return warning ? `${answer!.subscriber.email}: ${warning.message}.` : `Enrolled ${answer!.subscriber.email} (${answer!.status}).`;
    };
    const body = { subscriber: { email }, restart };
    if (await action.run(async () => (answer = await api<Enrolment>('POST', `/sequences/${sequenceId}/add_subscriber`, { body })), notice)) {
      setEmail('');
      setRestart(false);
      changed();
    }
  }
  async function remove(e: Enrolment) {
    if (!window.confirm(`Remove ${e.subscriber.email} from this sequence? Their enrolment ends as removed.`)) return;
    if (
      await action.run(
        () => api('DELETE', `/sequences/${sequenceId}/remove_subscriber`, { body: { email: e.subscriber.email } }),
        `Removed ${e.subscriber.email}.`,
      )
    )
      changed();
  }

  return (
    <>
      <h2>Enrolments</h2>
      <label class="inline">
        Status
        <select
          name="enrolment_status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            setPage(1);
          }}
        >
          <option value="">Any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {list.error && <ErrorMessage message={list.error} />}
      {p && (
        <p class="muted small" aria-live="polite" data-enrolments={p.count}>
          {p.count === 0 ? 'No enrolments' : `${formatNumber(p.count)} ${p.count === 1 ? 'enrolment' : 'enrolments'}`}
          {status ? ` with status ${status}` : ''}
        </p>
      )}
      {list.data && rows.length === 0 && (
        <Empty>
          {status
            ? 'No enrolment has this status: choose another or Any.'
            : 'Nobody is enrolled yet. Subscribers enter through the sequence’s tag or segment, the API, or the form below.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table class="enrolments">
            <thead>
              <tr>
                <th scope="col">Subscriber</th>
                <th scope="col">Status</th>
                <th scope="col">Current step</th>
                <th scope="col">Next step due</th>
                <th scope="col">Started</th>
                <th scope="col">Ended</th>
                {writable && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id} data-enrolment={e.id} data-status={e.status}>
                  <td>
                    <Link href={`/subscribers/show?${new URLSearchParams({ email: e.subscriber.email })}`}>{e.subscriber.email}</Link>
                  </td>
                  <td>
                    <StatusBadge status={e.status} />
                  </td>
                  <td class="small">{stepOf(e.current_step_id)}</td>
                  <td class="small">{UNDER_WAY.has(e.status) ? formatTime(e.next_trigger_at) : '—'}</td>
                  <td class="small">{formatTime(e.started_at)}</td>
                  <td class="small">{formatTime(e.completed_at)}</td>
                  {writable && (
                    <td>
                      {UNDER_WAY.has(e.status) && (
                        <button
                          type="button"
                          class="link danger-text"
                          aria-label={`Remove ${e.subscriber.email}`}
                          disabled={action.busy}
                          onClick={() => remove(e)}
                        >
                          Remove
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {p && p.pages > 1 && (
        <nav class="pager" aria-label="Enrolment pages">
          <button type="button" disabled={p.prev === null} onClick={() => setPage(p.prev ?? 1)}>
            Previous
          </button>
          <span>
            Page {p.page} of {p.pages}
          </span>
          <button type="button" disabled={p.next === null} onClick={() => setPage(p.next ?? p.page)}>
            Next
          </button>
        </nav>
      )}
      {writable && (
        <form class="panel stack" onSubmit={add}>
          <h3>Enrol a subscriber</h3>
          <div class="row">
            <Field label="Email" hint="An unknown address is created as a subscriber.">
              <input type="email" name="enrol_email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            </Field>
          </div>
          <label class="inline">
            <input type="checkbox" name="restart" checked={restart} onChange={(e) => setRestart(e.currentTarget.checked)} /> Start again from the beginning if
            their enrolment has ended
          </label>
          <Feedback action={action} />
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Enrol
            </button>
          </div>
        </form>
      )}
      {!writable && <Feedback action={action} />}
    </>
  );
}

/** Label, tracking, the enrolling tag and the email servers; `active` is the pause/resume button. */
function SettingsForm({ sequence, onSaved }: { sequence: Sequence; onSaved(): void }) {
  const can = useCan();
  const [label, setLabel] = useState(sequence.label);
  const [trackOpens, setTrackOpens] = useState(sequence.track_opens);
  const [trackClicks, setTrackClicks] = useState(sequence.track_clicks);
  const [initTag, setInitTag] = useState(sequence.init_tag ?? '');
  const [anyServer, setAnyServer] = useState(sequence.use_any_email_server);
  const [serverIds, setServerIds] = useState<number[]>(sequence.email_server_ids);
  const servers = useResource(
    () => (can('email_servers_read') ? api<Schemas['EmailServerList']>('GET', '/email_servers', { query: { limit: 100 } }) : Promise.resolve(undefined)),
    [],
  );
  const action = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    const body = {
      label,
      track_opens: trackOpens,
      track_clicks: trackClicks,
      init_tag: initTag.trim() === '' ? null : initTag.trim(),
      use_any_email_server: anyServer,
      ...(anyServer ? {} : { email_server_ids: serverIds }),
    };
    const save = async () => {
      const saved = await api<Sequence>('PATCH', `/sequences/${sequence.id}`, { body: { sequence: body } });
      setLabel(saved.label);
      setInitTag(saved.init_tag ?? '');
    };
    if (await action.run(save, 'Saved.')) onSaved();
  }
  const serverList = servers.data?.data ?? [];

  return (
    <form class="stack settings" onSubmit={submit}>
      <div class="row">
        <Field label="Label">
          <input name="seq_label" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
        <Field label="Enrol on tag" hint="Adding this tag to a subscriber enrols them while the sequence is active; removing it removes them.">
          <input name="init_tag" value={initTag} onInput={(e) => setInitTag(e.currentTarget.value)} />
        </Field>
      </div>
      <fieldset class="checks">
        <legend>Tracking</legend>
        <label>
          <input type="checkbox" name="track_opens" checked={trackOpens} onChange={(e) => setTrackOpens(e.currentTarget.checked)} /> Track opens
        </label>
        <label>
          <input type="checkbox" name="track_clicks" checked={trackClicks} onChange={(e) => setTrackClicks(e.currentTarget.checked)} /> Track clicks
        </label>
      </fieldset>
      <fieldset class="checks">
        <legend>Email servers</legend>
        <label>
          <input type="checkbox" name="use_any_email_server" checked={anyServer} onChange={(e) => setAnyServer(e.currentTarget.checked)} /> Any of the channel’s
          servers
        </label>
        {!anyServer &&
          serverList.map((server) => (
            <label key={server.id}>
              <input
                type="checkbox"
                name="email_server_ids"
                value={String(server.id)}
                checked={serverIds.includes(server.id)}
                onChange={(e) => setServerIds(e.currentTarget.checked ? [...serverIds, server.id] : serverIds.filter((x) => x !== server.id))}
              />{' '}
              {server.name ?? `${server.host}:${server.port}`}
            </label>
          ))}
        {!anyServer && !servers.data && <span class="muted small">Servers {serverIds.join(', ') || 'none'} (the token may not list email servers).</span>}
      </fieldset>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save settings
        </button>
      </div>
    </form>
  );
}
