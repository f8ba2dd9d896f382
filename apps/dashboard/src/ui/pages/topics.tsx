import { useEffect, useState } from 'preact/hooks';
import { api, type Schemas, type Topic, type TopicWithCounts } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatNumber, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

type TopicInput = Schemas['TopicInput'];
interface Draft {
  name: string;
  description: string;
  storage: 'custom_data' | 'tag';
  key: string;
  unset_receives: boolean;
  visible_on_preference_page: boolean;
}
const EMPTY: Draft = { name: '', description: '', storage: 'custom_data', key: '', unset_receives: false, visible_on_preference_page: true };

function draftOf(t: Topic): Draft {
  return {
    name: t.name,
    description: t.description ?? '',
    storage: t.storage,
    key: (t.storage === 'tag' ? t.tag_name : t.custom_data_key) ?? '',
    unset_receives: t.unset_receives,
    visible_on_preference_page: t.visible_on_preference_page,
  };
}
/** The storage is inferred from which key is sent, and fixed once made (docs/topics.md). */
function bodyOf(d: Draft, creating: boolean): TopicInput {
  const body: TopicInput = { name: d.name, description: d.description === '' ? null : d.description, visible_on_preference_page: d.visible_on_preference_page };
  if (creating) {
    if (d.storage === 'tag') body.tag_name = d.key;
    else body.custom_data_key = d.key;
  }
  if (d.storage === 'custom_data') body.unset_receives = d.unset_receives;
  return body;
}

/** Topics (a subscriber's preferences): the list with counts, create, edit and delete. */
export function Topics() {
  const can = useCan();
  const writable = can('subscribers_write');
  const list = useResource(async () => (await api<Schemas['TopicList']>('GET', '/topics.json')).data, []);
  // The counts are on each topic's own answer (docs/topics.md): one call per topic, few topics,
  // all at once; each runs over the channel's subscribers, so the rows show first and each
  // topic's counts fill in as they come (docs/dashboard.md, "Benchmark").
  const [counts, setCounts] = useState<ReadonlyMap<number, TopicWithCounts['counts']>>(new Map());
  useEffect(() => {
    let current = true;
    setCounts(new Map());
    for (const t of list.data ?? []) {
      void api<TopicWithCounts>('GET', `/topics/${t.id}.json`)
        .then((answer) => current && setCounts((known) => new Map(known).set(t.id, answer.counts)))
        .catch(() => undefined);
    }
    return () => {
      current = false;
    };
  }, [list.data]);
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const action = useAction();
  const topics = list.data ?? [];

  async function remove(t: Topic) {
    if (!confirm(`Delete the topic “${t.name}”? Subscribers' data stays as it is.`)) return;
    if (await action.run(() => api('DELETE', `/topics/${t.id}`), `Topic “${t.name}” deleted.`)) list.reload();
  }

  return (
    <section>
      <h1>Topics</h1>
      <p class="muted">
        What subscribers choose to receive, on the preference page and in forms; a broadcast or sequence can go only to those receiving a topic.
      </p>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && topics.length === 0 && <Empty>No topics yet.{writable ? ' Create one below.' : ''}</Empty>}
      <Feedback action={action} />
      {topics.length > 0 && (
        <div class="table-wrap">
          <table class="topics">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Storage</th>
                <th scope="col">Key or tag</th>
                <th scope="col">Yes</th>
                <th scope="col">No</th>
                <th scope="col">Unset</th>
                <th scope="col">Receiving</th>
                {writable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {topics.map((t) => (
                <tr key={t.id} data-topic={t.id}>
                  <td>{t.name}</td>
                  <td>{t.storage === 'tag' ? 'tag' : 'custom data'}</td>
                  <td>
                    <code>{t.storage === 'tag' ? t.tag_name : t.custom_data_key}</code>
                  </td>
                  <TopicCounts counts={counts.get(t.id)} />
                  {writable && (
                    <td class="actions">
                      <button type="button" data-do="edit" onClick={() => setEditing(t.id)} aria-label={`Edit ${t.name}`}>
                        Edit
                      </button>
                      <button type="button" data-do="delete" class="danger" onClick={() => void remove(t)} aria-label={`Delete ${t.name}`}>
                        Delete
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writable && editing !== undefined && topics.some((t) => t.id === editing) && (
        <TopicForm
          key={editing}
          topic={topics.find((t) => t.id === editing)!}
          onDone={() => {
            setEditing(undefined);
            list.reload();
          }}
        />
      )}
      {writable && <TopicForm key="new" onDone={list.reload} />}
    </section>
  );
}

/** A topic's four counts, or a placeholder in each cell while they are counted. */
function TopicCounts({ counts }: { counts: TopicWithCounts['counts'] | undefined }) {
  const cells = counts === undefined ? undefined : [counts.yes, counts.no, counts.unset, counts.receiving];
  return (
    <>
      {[0, 1, 2, 3].map((i) => (
        <td key={i} data-counted={cells !== undefined} aria-busy={cells === undefined}>
          {cells === undefined ? '…' : formatNumber(cells[i]!)}
        </td>
      ))}
    </>
  );
}

function TopicForm({ topic, onDone }: { topic?: Topic; onDone(): void }) {
  const creating = topic === undefined;
  const [draft, setDraft] = useState<Draft>(topic ? draftOf(topic) : EMPTY);
  const action = useAction();
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  async function submit(event: Event) {
    event.preventDefault();
    const ok = await action.run(() =>
      creating
        ? api<Topic>('POST', '/topics', { body: { topic: bodyOf(draft, true) } })
        : api<Topic>('PATCH', `/topics/${topic.id}`, { body: { topic: bodyOf(draft, false) } }),
    );
    if (ok) {
      if (creating) setDraft(EMPTY);
      onDone();
    }
  }
  const prefix = creating ? 'new' : 'edit';
  return (
    <form class={`panel stack topic-form ${prefix}-topic`} onSubmit={submit}>
      <h2>{creating ? 'New topic' : `Edit “${topic.name}”`}</h2>
      <div class="row">
        <Field label="Name">
          <input name="name" required value={draft.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        </Field>
        <Field label="Description">
          <input name="description" value={draft.description} onInput={(e) => set({ description: e.currentTarget.value })} />
        </Field>
      </div>
      <div class="row">
        <Field label="Stored as" hint={creating ? undefined : 'Fixed once the topic exists.'}>
          <select name="storage" disabled={!creating} value={draft.storage} onChange={(e) => set({ storage: e.currentTarget.value as Draft['storage'] })}>
            <option value="custom_data">A custom data key</option>
            <option value="tag">A tag</option>
          </select>
        </Field>
        <Field label={draft.storage === 'tag' ? 'Tag' : 'Custom data key'}>
          <input name="key" disabled={!creating} value={draft.key} onInput={(e) => set({ key: e.currentTarget.value })} />
        </Field>
      </div>
      <div class="checks">
        {draft.storage === 'custom_data' && (
          <label>
            <input type="checkbox" name="unset_receives" checked={draft.unset_receives} onChange={(e) => set({ unset_receives: e.currentTarget.checked })} />{' '}
            Subscribers who never chose receive it
          </label>
        )}
        <label>
          <input
            type="checkbox"
            name="visible_on_preference_page"
            checked={draft.visible_on_preference_page}
            onChange={(e) => set({ visible_on_preference_page: e.currentTarget.checked })}
          />{' '}
          Shown on the preference page
        </label>
      </div>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {creating ? 'Create topic' : 'Save topic'}
        </button>
        {!creating && (
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
