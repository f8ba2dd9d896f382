import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, type Schemas, type Sequence } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatNumber, Loading, Pager } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

const LIMIT = 25;

/** On or off as a badge: a switched-off sequence keeps its enrolments paused (docs/sequences.md). */
export function ActiveBadge({ sequence }: { sequence: Pick<Sequence, 'active'> }) {
  return <span class={`badge badge-${sequence.active ? 'on' : 'off'}`}>{sequence.active ? 'active' : 'paused'}</span>;
}

export function Sequences() {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const list = useResource(() => api<Schemas['SequenceList']>('GET', '/sequences', { query: { limit: LIMIT, offset } }), [offset]);
  const sequences = list.data?.data ?? [];
  const writable = can('sequences_write');

  return (
    <section>
      <h1>Sequences</h1>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && sequences.length === 0 && offset === 0 && (
        <Empty>
          No sequences yet.{' '}
          {writable
            ? 'Create one below, then add its steps: a welcome email, a delay, a condition on opens…'
            : 'Ask someone with the sequences_write permission to create one.'}
        </Empty>
      )}
      {sequences.length > 0 && (
        <div class="table-wrap">
          <table class="sequences">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">State</th>
                <th scope="col">Subscribers</th>
                <th scope="col">Steps</th>
              </tr>
            </thead>
            <tbody>
              {sequences.map((s) => (
                <tr key={s.id} data-sequence={s.id}>
                  <td>
                    <Link href={`/sequences/${s.id}`}>{s.label}</Link>
                  </td>
                  <td>
                    <ActiveBadge sequence={s} />
                  </td>
                  <td>{formatNumber(s.subscribers_count)}</td>
                  <td>{formatNumber(s.steps_count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={sequences.length} total={list.data?.total} onChange={setOffset} />
      {writable && <NewSequence />}
    </section>
  );
}

/** Creates a sequence (switched off, as the API makes it) and opens it to add its steps. */
function NewSequence() {
  const [label, setLabel] = useState('');
  const [, navigate] = useLocation();
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let created: Sequence | undefined;
    if (await action.run(async () => (created = await api<Sequence>('POST', '/sequences', { body: { sequence: { label } } })))) {
      navigate(`/sequences/${created!.id}`);
    }
  }
  return (
    <form class="panel stack" onSubmit={submit}>
      <h2>New sequence</h2>
      <div class="row">
        <Field label="Label" hint="It starts paused: add its steps, then resume it.">
          <input name="new_label" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
      </div>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Create sequence
        </button>
      </div>
    </form>
  );
}
