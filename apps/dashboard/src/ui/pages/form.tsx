import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type OptInForm, type OptInFormBlock, type OptInFormInput, type Schemas, type Topic } from '../api';
import { ErrorMessage, Feedback, Field, Loading } from '../components';
import { FormPreview } from '../form-preview';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { FormAnalytics } from './form-analytics';
import { WIDGET_LABELS } from './forms';

type BlockType = OptInFormBlock['block_type'];
/** A block being edited: the API's fields, without the ones it sets (`key` is the list's own). */
export type DraftBlock = Omit<OptInFormBlock, 'id' | 'created_at' | 'updated_at'> & { key: number };

const BLOCK_LABELS: Record<BlockType, string> = {
  heading: 'Heading',
  text: 'Text',
  image: 'Image',
  input_field: 'Input field',
  checkbox: 'Checkbox',
  dropdown: 'Dropdown',
  radio_group: 'Radio group',
  custom_field: 'Custom field',
  topic: 'Topic',
  button: 'Button',
  divider: 'Divider',
  spacer: 'Spacer',
};
const FREQUENCIES = ['every_visit', 'always', 'once_per_session', 'once_per_day', 'once_per_week', 'once'] as const;
const TRIGGERS = ['immediate', 'time_delay', 'scroll', 'exit_intent'] as const;
const DEVICES = ['desktop', 'tablet', 'mobile'] as const;
/** theme_settings.colors keys the public form reads (docs/dashboard.md, "Forms"). */
const COLOURS = [
  ['background', 'Background', '#ffffff'],
  ['text', 'Text', '#18181b'],
  ['button_background', 'Button', '#2563eb'],
  ['button_text', 'Button text', '#ffffff'],
] as const;

let nextKey = 1;
function draftOf(b: OptInFormBlock): DraftBlock {
  const rest: Partial<OptInFormBlock> = { ...b };
  delete rest.id;
  delete rest.created_at;
  delete rest.updated_at;
  return { ...(rest as Omit<OptInFormBlock, 'id' | 'created_at' | 'updated_at'>), key: nextKey++ };
}
function newBlock(type: BlockType): DraftBlock {
  return {
    key: nextKey++,
    block_type: type,
    position: 0,
    text_value: type === 'heading' ? 'Join the newsletter' : type === 'text' ? 'News once a week, no spam.' : null,
    input_field_label: null,
    input_field_placeholder: null,
    input_field_value_type: type === 'input_field' ? 'first_name' : null,
    custom_field_key: null,
    required: false,
    multiline: false,
    options: [],
    checkbox_label: null,
    topic_id: null,
    image_url: null,
    button_label: type === 'button' ? 'Sign Up' : null,
    custom_css: null,
  };
}
/** The blocks as the API takes them: the whole list, in order (`opt_in_form_blocks` replaces the view). */
function blocksBody(blocks: DraftBlock[]): NonNullable<OptInFormInput['opt_in_form_blocks']> {
  return blocks.map((block, position) => {
    const b: Partial<DraftBlock> = { ...block, position };
    delete b.key;
    return b;
  });
}

interface Draft {
  label: string;
  form_type: OptInForm['form_type'];
  widget_type: OptInForm['widget_type'];
  enabled: boolean;
  domains: string;
  colors: Record<string, string>;
  trigger: Record<string, unknown>;
  automation: { tag_list: string; sequence_ids: number[]; double_opt_in: boolean; send_welcome_email: boolean };
  security: Record<string, unknown>;
  blocks: DraftBlock[];
}

const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

function draftFromForm(f: OptInForm): Draft {
  const a = rec(f.automation_settings);
  const colors = rec(rec(f.theme_settings).colors);
  return {
    label: f.label,
    form_type: f.form_type,
    widget_type: f.widget_type,
    enabled: f.enabled,
    domains: f.allowed_embedding_domains.join('\n'),
    colors: Object.fromEntries(COLOURS.map(([k, , d]) => [k, typeof colors[k] === 'string' ? (colors[k] as string) : d])),
    trigger: { ...rec(f.trigger_settings) },
    automation: {
      tag_list: Array.isArray(a.tag_list) ? (a.tag_list as string[]).join(', ') : '',
      sequence_ids: Array.isArray(a.sequence_ids) ? (a.sequence_ids as number[]) : [],
      double_opt_in: a.double_opt_in === true,
      send_welcome_email: a.send_welcome_email === true,
    },
    security: { ...rec(f.security_settings) },
    blocks: f.opt_in_form_blocks
      .slice()
      .sort((x, y) => x.position - y.position)
      .map(draftOf),
  };
}

function bodyOf(d: Draft): OptInFormInput {
  return {
    label: d.label,
    form_type: d.form_type,
    widget_type: d.widget_type,
    enabled: d.enabled,
    allowed_embedding_domains: d.domains,
    theme_settings: { colors: d.colors },
    trigger_settings: d.trigger as OptInFormInput['trigger_settings'],
    automation_settings: {
      tag_list: d.automation.tag_list
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== ''),
      sequence_ids: d.automation.sequence_ids,
      double_opt_in: d.automation.double_opt_in,
      send_welcome_email: d.automation.send_welcome_email,
    },
    security_settings: d.security as OptInFormInput['security_settings'],
    opt_in_form_blocks: blocksBody(d.blocks),
  };
}

/** A form's page: the builder (settings, blocks), its live preview, the embed snippet, variants and analytics. */
export function FormPage() {
  const { id } = useParams<{ id: string }>();
  const can = useCan();
  const [, navigate] = useLocation();
  const form = useResource(() => api<OptInForm>('GET', `/opt_in_forms/${id}`), [id]);
  const topics = useResource(
    () => (can('subscribers_read') ? api<Schemas['TopicList']>('GET', '/topics.json').then((l) => l.data) : Promise.resolve([] as Topic[])),
    [],
  );
  const sequences = useResource(
    () => (can('sequences_read') ? api<Schemas['SequenceList']>('GET', '/sequences', { query: { limit: 100 } }).then((l) => l.data) : Promise.resolve([])),
    [],
  );
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const save = useAction();
  const other = useAction();
  const writable = can('opt_in_forms_write');

  useEffect(() => {
    if (form.data) setDraft(draftFromForm(form.data));
  }, [form.data]);

  const preview = useMemo(
    () =>
      draft && {
        theme_settings: { colors: draft.colors },
        opt_in_form_blocks: blocksBody(draft.blocks).map((b, i) => ({ ...(b as OptInFormBlock), id: i, created_at: '', updated_at: '' })),
      },
    [draft],
  );

  if (form.error) return <ErrorMessage message={form.error} />;
  if (!form.data || !draft || !preview) return <Loading />;
  const f = form.data;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });

  async function submit(event: Event) {
    event.preventDefault();
    await save.run(async () => {
      const saved = await api<OptInForm>('PATCH', `/opt_in_forms/${f.id}`, { body: { opt_in_form: bodyOf(draft!) } });
      form.reload();
      return saved;
    }, 'Form saved.');
  }
  async function duplicate() {
    let copy: OptInForm | undefined;
    if (await other.run(async () => (copy = await api<OptInForm>('POST', `/opt_in_forms/${f.id}/duplicate`, { body: {} })))) navigate(`/forms/${copy!.id}`);
  }
  async function remove() {
    if (!confirm(`Delete the form “${f.label}”${f.variants_count > 0 ? ' and its variants' : ''}?`)) return;
    if (await other.run(() => api('DELETE', `/opt_in_forms/${f.id}`))) navigate(f.parent_form_id ? `/forms/${f.parent_form_id}` : '/forms');
  }

  return (
    <section class="form-page">
      <p>
        <Link href={f.parent_form_id ? `/forms/${f.parent_form_id}` : '/forms'}>{f.parent_form_id ? '← Main form' : '← Forms'}</Link>
      </p>
      <h1>
        {f.label}
        {f.is_variant && f.variant_name ? ` — ${f.variant_name}` : ''}
      </h1>
      {writable && (
        <div class="actions">
          {!f.is_variant && (
            <button type="button" onClick={duplicate} disabled={other.busy}>
              Duplicate
            </button>
          )}
          <button type="button" class="danger" onClick={remove} disabled={other.busy}>
            Delete
          </button>
        </div>
      )}
      <Feedback action={other} />
      <div class="builder">
        <form class="stack builder-settings" onSubmit={submit}>
          <h2>Settings</h2>
          <Field label="Label">
            <input name="label" required value={draft.label} onInput={(e) => set({ label: e.currentTarget.value })} />
          </Field>
          <div class="row">
            <Field label="Form type">
              <select name="form_type" value={draft.form_type} onChange={(e) => set({ form_type: e.currentTarget.value as Draft['form_type'] })}>
                <option value="embed">Embedded on a site</option>
                <option value="web">Hosted page</option>
              </select>
            </Field>
            <Field label="Widget type">
              <select name="widget_type" value={draft.widget_type} onChange={(e) => set({ widget_type: e.currentTarget.value as Draft['widget_type'] })}>
                {Object.entries(WIDGET_LABELS).map(([value, text]) => (
                  <option key={value} value={value}>
                    {text}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <label>
            <input type="checkbox" name="enabled" checked={draft.enabled} onChange={(e) => set({ enabled: e.currentTarget.checked })} /> Enabled
          </label>
          <Field label="Allowed domains" hint="One per line; empty allows any site.">
            <textarea name="allowed_embedding_domains" rows={2} value={draft.domains} onInput={(e) => set({ domains: e.currentTarget.value })} />
          </Field>
          <fieldset class="row">
            <legend>Theme colours</legend>
            {COLOURS.map(([key, text]) => (
              <Field key={key} label={text} hint="Hex, e.g. #2563eb">
                <input name={`color_${key}`} value={draft.colors[key]} onInput={(e) => set({ colors: { ...draft.colors, [key]: e.currentTarget.value } })} />
              </Field>
            ))}
          </fieldset>
          <TriggerFields value={draft.trigger} onChange={(trigger) => set({ trigger })} />
          <fieldset class="stack">
            <legend>Automation</legend>
            <Field label="Tags" hint="Comma-separated, added to each subscriber who signs up.">
              <input
                name="tag_list"
                value={draft.automation.tag_list}
                onInput={(e) => set({ automation: { ...draft.automation, tag_list: e.currentTarget.value } })}
              />
            </Field>
            {(sequences.data ?? []).length > 0 && (
              <fieldset class="checks">
                <legend>Enrol in sequences</legend>
                {sequences.data!.map((s) => (
                  <label key={s.id}>
                    <input
                      type="checkbox"
                      name="sequence_ids"
                      value={String(s.id)}
                      checked={draft.automation.sequence_ids.includes(s.id)}
                      onChange={(e) =>
                        set({
                          automation: {
                            ...draft.automation,
                            sequence_ids: e.currentTarget.checked
                              ? [...draft.automation.sequence_ids, s.id]
                              : draft.automation.sequence_ids.filter((x) => x !== s.id),
                          },
                        })
                      }
                    />{' '}
                    {s.label}
                  </label>
                ))}
              </fieldset>
            )}
            <label>
              <input
                type="checkbox"
                name="double_opt_in"
                checked={draft.automation.double_opt_in}
                onChange={(e) => set({ automation: { ...draft.automation, double_opt_in: e.currentTarget.checked } })}
              />{' '}
              Double opt-in (a confirmation email first)
            </label>
            <label>
              <input
                type="checkbox"
                name="send_welcome_email"
                checked={draft.automation.send_welcome_email}
                onChange={(e) => set({ automation: { ...draft.automation, send_welcome_email: e.currentTarget.checked } })}
              />{' '}
              Send a welcome email
            </label>
          </fieldset>
          <SecurityFields value={draft.security} onChange={(security) => set({ security })} />
          <BlockList blocks={draft.blocks} topics={topics.data ?? []} onChange={(blocks) => set({ blocks })} />
          <Feedback action={save} />
          {writable && (
            <div class="actions">
              <button type="submit" class="primary" disabled={save.busy}>
                Save form
              </button>
            </div>
          )}
        </form>
        <div class="builder-preview">
          <h2>Preview</h2>
          <p class="muted">{WIDGET_LABELS[draft.widget_type]}, as the embed script draws it (unsaved changes included).</p>
          <FormPreview form={preview} widget={draft.widget_type} />
        </div>
      </div>
      <Snippet form={f} />
      {!f.is_variant && <Variants form={f} writable={writable} />}
      <FormAnalytics formId={f.id} />
    </section>
  );
}

function TriggerFields({ value, onChange }: { value: Record<string, unknown>; onChange(v: Record<string, unknown>): void }) {
  const devices = Array.isArray(value.devices) ? (value.devices as string[]) : [];
  return (
    <fieldset class="stack">
      <legend>Trigger</legend>
      <div class="row">
        <Field label="Show">
          <select name="trigger" value={String(value.trigger ?? 'immediate')} onChange={(e) => onChange({ ...value, trigger: e.currentTarget.value })}>
            {TRIGGERS.map((t) => (
              <option key={t} value={t}>
                {t.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Delay (seconds)">
          <input
            name="delay_seconds"
            type="number"
            min={0}
            value={String(value.delay_seconds ?? 0)}
            onInput={(e) => onChange({ ...value, delay_seconds: Number(e.currentTarget.value) })}
          />
        </Field>
        <Field label="Scroll (%)">
          <input
            name="scroll_percentage"
            type="number"
            min={0}
            max={100}
            value={String(value.scroll_percentage ?? 50)}
            onInput={(e) => onChange({ ...value, scroll_percentage: Number(e.currentTarget.value) })}
          />
        </Field>
        <Field label="Frequency">
          <select name="frequency" value={String(value.frequency ?? 'every_visit')} onChange={(e) => onChange({ ...value, frequency: e.currentTarget.value })}>
            {FREQUENCIES.map((t) => (
              <option key={t} value={t}>
                {t.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <fieldset class="checks">
        <legend>Devices (none ticked: all)</legend>
        {DEVICES.map((d) => (
          <label key={d}>
            <input
              type="checkbox"
              name="devices"
              value={d}
              checked={devices.includes(d)}
              onChange={(e) => onChange({ ...value, devices: e.currentTarget.checked ? [...devices, d] : devices.filter((x) => x !== d) })}
            />{' '}
            {d}
          </label>
        ))}
      </fieldset>
    </fieldset>
  );
}

function SecurityFields({ value, onChange }: { value: Record<string, unknown>; onChange(v: Record<string, unknown>): void }) {
  const flag = (key: string, text: string) => (
    <label>
      <input type="checkbox" name={key} checked={value[key] === true} onChange={(e) => onChange({ ...value, [key]: e.currentTarget.checked })} /> {text}
    </label>
  );
  const num = (key: string, text: string) => (
    <Field label={text}>
      <input name={key} type="number" min={0} value={String(value[key] ?? '')} onInput={(e) => onChange({ ...value, [key]: Number(e.currentTarget.value) })} />
    </Field>
  );
  return (
    <fieldset class="stack">
      <legend>Security</legend>
      <div class="checks">
        {flag('honeypot', 'Honeypot field')}
        {flag('time_validation', 'Refuse too-fast submissions')}
        {flag('rate_limit', 'Limit submissions per address')}
        {flag('turnstile', 'Cloudflare Turnstile')}
      </div>
      <div class="row">
        {num('min_submit_seconds', 'Minimum seconds before submit')}
        {num('rate_limit_max', 'Submissions per window')}
        {num('rate_limit_window_minutes', 'Window (minutes)')}
        <Field label="Turnstile site key">
          <input
            name="turnstile_site_key"
            value={String(value.turnstile_site_key ?? '')}
            onInput={(e) => onChange({ ...value, turnstile_site_key: e.currentTarget.value })}
          />
        </Field>
      </div>
    </fieldset>
  );
}

/** The form view's blocks: add, remove, move up/down and edit; saved with the form (the API checks them). */
function BlockList({ blocks, topics, onChange }: { blocks: DraftBlock[]; topics: Topic[]; onChange(b: DraftBlock[]): void }) {
  const [type, setType] = useState<BlockType>('heading');
  const update = (key: number, patch: Partial<DraftBlock>) => onChange(blocks.map((b) => (b.key === key ? { ...b, ...patch } : b)));
  const move = (index: number, by: number) => {
    const next = blocks.slice();
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    onChange(next);
  };
  return (
    <fieldset class="stack blocks">
      <legend>Blocks</legend>
      <ol class="block-list">
        {blocks.map((b, i) => (
          <li key={b.key} data-block={b.block_type}>
            <div class="block-head">
              <strong>{BLOCK_LABELS[b.block_type]}</strong>
              <span class="actions">
                <button type="button" data-do="up" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move block ${i + 1} up`}>
                  ↑
                </button>
                <button type="button" data-do="down" disabled={i === blocks.length - 1} onClick={() => move(i, 1)} aria-label={`Move block ${i + 1} down`}>
                  ↓
                </button>
                <button type="button" data-do="remove" onClick={() => onChange(blocks.filter((x) => x.key !== b.key))} aria-label={`Remove block ${i + 1}`}>
                  Remove
                </button>
              </span>
            </div>
            <BlockFields block={b} index={i} topics={topics} onChange={(patch) => update(b.key, patch)} />
          </li>
        ))}
      </ol>
      <div class="row">
        <Field label="New block">
          <select name="new_block_type" value={type} onChange={(e) => setType(e.currentTarget.value as BlockType)}>
            {Object.entries(BLOCK_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </Field>
        <button type="button" onClick={() => onChange([...blocks, newBlock(type)])}>
          Add block
        </button>
      </div>
    </fieldset>
  );
}

function BlockFields({ block: b, index, topics, onChange }: { block: DraftBlock; index: number; topics: Topic[]; onChange(p: Partial<DraftBlock>): void }) {
  const n = index + 1;
  const textField = (
    key: 'text_value' | 'input_field_label' | 'input_field_placeholder' | 'custom_field_key' | 'checkbox_label' | 'image_url' | 'button_label',
    label: string,
  ) => (
    <Field label={`${label} (block ${n})`}>
      <input
        name={`${key}_${n}`}
        data-field={key}
        value={b[key] ?? ''}
        onInput={(e) => onChange({ [key]: e.currentTarget.value === '' ? null : e.currentTarget.value })}
      />
    </Field>
  );
  const required = (
    <label>
      <input type="checkbox" data-field="required" checked={b.required} onChange={(e) => onChange({ required: e.currentTarget.checked })} /> Required
    </label>
  );
  switch (b.block_type) {
    case 'heading':
    case 'text':
      return <div class="row">{textField('text_value', 'Text')}</div>;
    case 'image':
      return (
        <div class="row">
          {textField('image_url', 'Image address')}
          {textField('text_value', 'Alternative text')}
        </div>
      );
    case 'input_field':
      return (
        <div class="row">
          <Field label={`Value (block ${n})`}>
            <select
              data-field="input_field_value_type"
              value={b.input_field_value_type ?? 'email'}
              onChange={(e) => onChange({ input_field_value_type: e.currentTarget.value as DraftBlock['input_field_value_type'] })}
            >
              {['email', 'first_name', 'last_name', 'name', 'custom'].map((v) => (
                <option key={v} value={v}>
                  {v.replace('_', ' ')}
                </option>
              ))}
            </select>
          </Field>
          {textField('input_field_label', 'Label')}
          {textField('input_field_placeholder', 'Placeholder')}
          {b.input_field_value_type === 'custom' && textField('custom_field_key', 'Custom field key')}
          {required}
        </div>
      );
    case 'custom_field':
    case 'checkbox':
    case 'dropdown':
    case 'radio_group':
      return (
        <div class="row">
          {textField('custom_field_key', 'Custom field key')}
          {b.block_type === 'checkbox' ? textField('checkbox_label', 'Box label') : textField('input_field_label', 'Label')}
          {(b.block_type === 'dropdown' || b.block_type === 'radio_group') && (
            <Field label={`Options (block ${n})`} hint="Comma-separated">
              <input
                data-field="options"
                value={b.options.join(', ')}
                onInput={(e) =>
                  onChange({
                    options: e.currentTarget.value
                      .split(',')
                      .map((o) => o.trim())
                      .filter((o) => o !== ''),
                  })
                }
              />
            </Field>
          )}
          {required}
        </div>
      );
    case 'topic':
      return (
        <div class="row">
          <Field label={`Topic (block ${n})`}>
            <select
              data-field="topic_id"
              value={b.topic_id === null ? '' : String(b.topic_id)}
              onChange={(e) => onChange({ topic_id: e.currentTarget.value === '' ? null : Number(e.currentTarget.value) })}
            >
              <option value="">—</option>
              {topics.map((t) => (
                <option key={t.id} value={String(t.id)}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          {textField('checkbox_label', 'Box label')}
        </div>
      );
    case 'button':
      return <div class="row">{textField('button_label', 'Button label')}</div>;
    default:
      return null;
  }
}

/** The embed snippet and the hosted page's address, each with a copy button. */
function Snippet({ form }: { form: OptInForm }) {
  const snippet = `<script src="${form.embed_url}" async></script>`;
  const page = form.embed_url.replace(/\/embed\.js$/, '');
  const [copied, setCopied] = useState<string | undefined>(undefined);
  async function copy(text: string, what: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied.`);
    } catch {
      setCopied(`The browser refused the clipboard: select the ${what.toLowerCase()} and copy it.`);
    }
  }
  return (
    <section class="panel stack snippet">
      <h2>Embed</h2>
      <Field label="Embed snippet" hint="Paste it where the form should appear (a pop-up or bar can go anywhere in the page).">
        <textarea name="snippet" rows={2} readOnly value={snippet} />
      </Field>
      <div class="actions">
        <button type="button" onClick={() => void copy(snippet, 'Snippet')}>
          Copy snippet
        </button>
      </div>
      <p>
        Hosted page:{' '}
        <a href={page} class="hosted-link" target="_blank" rel="noopener noreferrer">
          {page}
        </a>{' '}
        <button type="button" onClick={() => void copy(page, 'Link')}>
          Copy link
        </button>
      </p>
      {copied && (
        <p class="notice" role="status">
          {copied}
        </p>
      )}
    </section>
  );
}

/** Variants of a main form: each with its figures (from analytics) and a link to its own builder. */
function Variants({ form, writable }: { form: OptInForm; writable: boolean }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [weight, setWeight] = useState('50');
  const action = useAction();
  const variants = useResource(
    () => api<Schemas['OptInFormAnalytics']>('GET', `/opt_in_forms/${form.id}/analytics`).then((a) => a.variants),
    [form.id, form.variants_count],
  );
  async function add(event: Event) {
    event.preventDefault();
    const body: Record<string, unknown> = { weight: Number(weight) };
    if (name.trim() !== '') body.name = name.trim();
    let created: OptInForm | undefined;
    if (await action.run(async () => (created = await api<OptInForm>('POST', `/opt_in_forms/${form.id}/variants`, { body }))))
      navigate(`/forms/${created!.id}`);
  }
  const rows = (variants.data ?? []).filter((v) => v.form_id !== form.id);
  return (
    <section class="panel stack variants">
      <h2>Variants</h2>
      {variants.error && <ErrorMessage message={variants.error} />}
      {rows.length === 0 ? (
        <p class="muted">No variants: every visitor sees this form.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">Weight</th>
                <th scope="col">Views</th>
                <th scope="col">Submissions</th>
                <th scope="col">Conversion</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((v) => (
                <tr key={v.form_id} data-variant={v.form_id}>
                  <td>
                    <Link href={`/forms/${v.form_id}`}>{v.variant_name}</Link>
                  </td>
                  <td>{v.variant_weight}</td>
                  <td>{v.views}</td>
                  <td>{v.submissions}</td>
                  <td>{v.conversion_rate}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writable && (
        <form class="row" onSubmit={add}>
          <Field label="Variant name" hint="Empty: Variant B, C…">
            <input name="variant_name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Weight (0–100)">
            <input name="variant_weight" type="number" min={0} max={100} value={weight} onInput={(e) => setWeight(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Add variant
          </button>
        </form>
      )}
      <Feedback action={action} />
    </section>
  );
}
