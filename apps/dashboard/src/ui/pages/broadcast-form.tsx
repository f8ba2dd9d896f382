import { useEffect, useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type Broadcast, type Schemas } from '../api';
import { ErrorMessage, Feedback, Field, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { SubjectTestFields } from './subject-test';

type Input = Schemas['BroadcastCreateInput'];

const EMPTY: Input = {
  name: '',
  subject: '',
  preheader: '',
  body: '',
  html_body: '',
  reply_to: '',
  track_opens: true,
  track_clicks: true,
  include_unsubscribe_link: true,
  archive: false,
  topic_id: null,
  excluded_segment_ids: [],
  ab_test: null,
};

function inputOf(b: Broadcast): Input {
  return {
    name: b.name ?? '',
    subject: b.subject,
    preheader: b.preheader ?? '',
    body: b.body ?? '',
    html_body: b.html_body ?? '',
    reply_to: b.reply_to ?? '',
    track_opens: b.track_opens,
    track_clicks: b.track_clicks,
    include_unsubscribe_link: b.include_unsubscribe_link,
    archive: b.archive,
    topic_id: b.topic_id,
    excluded_segment_ids: b.excluded_segment_ids,
    ab_test: b.ab_test,
  };
}

/** Blank optional text fields are left out, so the API keeps its defaults. */
function bodyOf(input: Input): Input {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) if (value !== '') out[key] = value;
  return out as Input;
}

/** Create (at /broadcasts/new) or edit (at /broadcasts/:id/edit) a broadcast's content. */
export function BroadcastForm() {
  const params = useParams<{ id?: string }>();
  const id = params.id === undefined ? undefined : Number(params.id);
  const [, navigate] = useLocation();
  const existing = useResource(() => (id === undefined ? Promise.resolve(undefined) : api<Broadcast>('GET', `/broadcasts/${id}`)), [id]);
  const [input, setInput] = useState<Input>(EMPTY);
  const save = useAction();
  const can = useCan();
  // Topics and segments are read with subscribers_read; without it the audience fields are hidden.
  const audience = useResource(
    async () =>
      can('subscribers_read')
        ? {
            topics: (await api<Schemas['TopicList']>('GET', '/topics.json')).data,
            segments: (await api<Schemas['SegmentList']>('GET', '/segments.json', { query: { limit: 100 } })).data,
          }
        : undefined,
    [],
  );

  useEffect(() => {
    if (existing.data) setInput(inputOf(existing.data));
  }, [existing.data]);

  const text = (key: 'name' | 'subject' | 'preheader' | 'body' | 'html_body' | 'reply_to') => ({
    name: key,
    value: input[key] ?? '',
    onInput: (e: Event) => setInput({ ...input, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  const flag = (key: 'track_opens' | 'track_clicks' | 'include_unsubscribe_link' | 'archive') => ({
    name: key,
    type: 'checkbox',
    checked: input[key] ?? false,
    onChange: (e: Event) => setInput({ ...input, [key]: (e.currentTarget as HTMLInputElement).checked }),
  });

  async function submit(event: Event) {
    event.preventDefault();
    let target = id;
    const ok = await save.run(async () => {
      if (id === undefined) target = (await api<Schemas['BroadcastCreated']>('POST', '/broadcasts', { body: { broadcast: bodyOf(input) } })).id;
      else await api<Broadcast>('PATCH', `/broadcasts/${id}`, { body: { broadcast: bodyOf(input) } });
    });
    if (ok && target !== undefined) navigate(`/broadcasts/${target}`);
  }

  if (id !== undefined && existing.error) return <ErrorMessage message={existing.error} />;
  if (id !== undefined && !existing.data) return <Loading />;
  return (
    <section>
      <h1>{id === undefined ? 'New broadcast' : `Edit ${existing.data?.name || existing.data?.subject}`}</h1>
      <form class="stack" onSubmit={submit}>
        <Field label="Name" hint="For you; recipients never see it.">
          <input {...text('name')} />
        </Field>
        <Field label="Subject" hint="A Liquid template, e.g. Hello {{ subscriber.first_name }}">
          <input {...text('subject')} required />
        </Field>
        <SubjectTestFields value={input.ab_test ?? null} onChange={(ab_test) => setInput({ ...input, ab_test })} />
        <Field label="Preheader">
          <input {...text('preheader')} />
        </Field>
        <Field label="Plain-text body">
          <textarea rows={6} {...text('body')} />
        </Field>
        <Field label="HTML body">
          <textarea rows={8} {...text('html_body')} />
        </Field>
        <Field label="Reply-to">
          <input type="email" {...text('reply_to')} />
        </Field>
        <fieldset class="checks">
          <legend>Tracking</legend>
          <label>
            <input {...flag('track_opens')} /> Track opens
          </label>
          <label>
            <input {...flag('track_clicks')} /> Track clicks
          </label>
          <label>
            <input {...flag('include_unsubscribe_link')} /> Include an unsubscribe link
          </label>
        </fieldset>
        <fieldset class="checks">
          <legend>Archive</legend>
          <label>
            <input {...flag('archive')} /> Publish in the channel's public archive once sent
          </label>
        </fieldset>
        {audience.data && (
          <fieldset class="stack">
            <legend>Audience</legend>
            <Field label="Topic" hint="Only subscribers receiving this topic get it.">
              <select
                name="topic_id"
                value={input.topic_id === null || input.topic_id === undefined ? '' : String(input.topic_id)}
                onChange={(e) => setInput({ ...input, topic_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
              >
                <option value="">No topic: everyone targeted</option>
                {audience.data.topics.map((t) => (
                  <option key={t.id} value={String(t.id)}>
                    {t.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Excluded segments" hint="Members of these segments never get it.">
              <select
                name="excluded_segment_ids"
                multiple
                size={Math.min(5, Math.max(2, audience.data.segments.length))}
                onChange={(e) => setInput({ ...input, excluded_segment_ids: [...e.currentTarget.selectedOptions].map((o) => Number(o.value)) })}
              >
                {audience.data.segments.map((s) => (
                  <option key={s.id} value={String(s.id)} selected={(input.excluded_segment_ids ?? []).includes(s.id)}>
                    {s.name}
                  </option>
                ))}
              </select>
            </Field>
          </fieldset>
        )}
        <Feedback action={save} />
        <div class="actions">
          <button type="submit" class="primary" disabled={save.busy}>
            {id === undefined ? 'Create draft' : 'Save'}
          </button>
          <Link href={id === undefined ? '/broadcasts' : `/broadcasts/${id}`}>Cancel</Link>
        </div>
      </form>
    </section>
  );
}
