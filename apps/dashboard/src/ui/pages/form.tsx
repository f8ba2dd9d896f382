import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, type OptInForm, type OptInFormBlock, type OptInFormInput, type Schemas, type Topic } from '../api';
import { ErrorMessage, Feedback, Field, Loading } from '../components';
import { NO_REFUSAL, refusalOf, type Refusal } from '../field-errors';
import { FormPreview, type PreviewState } from '../form-preview';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';
import { AFTER_FIELDS, AfterSignUpFields, type AfterSignUp } from './form-after-signup';
import { FormAnalytics } from './form-analytics';
import { Variants } from './form-variants';
import { BlockList, blocksBody, draftOf, type DraftBlock } from './form-blocks';
import { SecurityFields, TriggerFields } from './form-settings-fields';
import { WIDGET_LABELS } from './forms';

/** theme_settings.colors keys the public form reads (docs/dashboard.md, "Forms"). */
const COLOURS = [
  ['background', 'Background', '#ffffff'],
  ['text', 'Text', '#18181b'],
  ['button_background', 'Button', '#2563eb'],
  ['button_text', 'Button text', '#ffffff'],
] as const;

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
  after: AfterSignUp;
}

const byPosition = (list: OptInFormBlock[]) =>
  list
    .slice()
    .sort((x, y) => x.position - y.position)
    .map(draftOf);
/** The API's blocks of a draft list, as the preview reads them. */
const asBlocks = (list: DraftBlock[]): OptInFormBlock[] =>
  blocksBody(list).map((b, i) => ({ ...(b as OptInFormBlock), id: i, created_at: '', updated_at: '' }));

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
    blocks: byPosition(f.opt_in_form_blocks),
    after: {
      blocks: byPosition(f.opt_in_post_submission_blocks),
      redirect: f.confirmation_redirect_url ?? '',
      confirmation_email_template_id: f.confirmation_email_template_id,
      welcome_email_template_id: f.welcome_email_template_id,
      include_unsubscribe_link_in_confirmation: f.include_unsubscribe_link_in_confirmation,
    },
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
    opt_in_post_submission_blocks: blocksBody(d.after.blocks),
    confirmation_redirect_url: d.after.redirect.trim() === '' ? null : d.after.redirect.trim(),
    confirmation_email_template_id: d.after.confirmation_email_template_id,
    welcome_email_template_id: d.after.welcome_email_template_id,
    include_unsubscribe_link_in_confirmation: d.after.include_unsubscribe_link_in_confirmation,
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
  const templates = useResource(
    () => (can('templates_read') ? api<Schemas['TemplateList']>('GET', '/templates', { query: { limit: 100 } }).then((l) => l.data) : Promise.resolve([])),
    [],
  );
  const [draft, setDraft] = useState<Draft | undefined>(undefined);
  const [refusal, setRefusal] = useState<Refusal>(NO_REFUSAL);
  const [previewState, setPreviewState] = useState<PreviewState>('form');
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
        opt_in_form_blocks: asBlocks(draft.blocks),
        opt_in_post_submission_blocks: asBlocks(draft.after.blocks),
      },
    [draft],
  );

  if (form.error) return <ErrorMessage message={form.error} />;
  if (!form.data || !draft || !preview) return <Loading />;
  const f = form.data;
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });

  async function submit(event: Event) {
    event.preventDefault();
    setRefusal(NO_REFUSAL);
    await save.run(async () => {
      try {
        const saved = await api<OptInForm>('PATCH', `/opt_in_forms/${f.id}`, { body: { opt_in_form: bodyOf(draft!) } });
        form.reload();
        return saved;
      } catch (e) {
        // The forms API joins every fault with "; " (docs/opt-in-forms.md): those naming a field of the after-sign-up editor show beside it.
        const split = refusalOf(e, AFTER_FIELDS, '; ');
        setRefusal(split);
        throw new Error(split.message ?? 'The form was not saved: see the messages beside the fields.');
      }
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
          <AfterSignUpFields
            value={draft.after}
            onChange={(after) => set({ after })}
            templates={templates.data ?? []}
            topics={topics.data ?? []}
            welcomeOn={draft.automation.send_welcome_email}
            doubleOptIn={draft.automation.double_opt_in}
            refusal={refusal}
          />
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
          <div class="actions preview-state" role="group" aria-label="Preview shows">
            {(
              [
                ['form', 'The form'],
                ['after', 'After sign-up'],
              ] as const
            ).map(([state, text]) => (
              <button key={state} type="button" data-state={state} aria-pressed={previewState === state} onClick={() => setPreviewState(state)}>
                {text}
              </button>
            ))}
          </div>
          <FormPreview form={preview} widget={draft.widget_type} state={previewState} />
          {previewState === 'after' && draft.after.redirect.trim() !== '' && (
            <p class="muted redirect-note">Confirmation redirect: {draft.after.redirect.trim()}</p>
          )}
        </div>
      </div>
      <Snippet form={f} />
      {!f.is_variant && <Variants form={f} writable={writable} />}
      <FormAnalytics formId={f.id} />
    </section>
  );
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
