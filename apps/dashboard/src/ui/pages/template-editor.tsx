import { useEffect, useRef, useState } from 'preact/hooks';
import { Link, useLocation, useParams } from 'wouter-preact';
import { api, ApiError, type Schemas } from '../api';
import { ErrorMessage, Feedback, Field, Loading } from '../components';
import { errorMessage, useAction } from '../hooks';
import { useCan } from '../session';

type Template = Schemas['Template'];
type Rendered = Schemas['TemplatePreview'];

interface Draft {
  label: string;
  subject: string;
  preheader: string;
  body: string;
  html_body: string;
  template_purpose: 'broadcast' | 'confirmation';
  default_confirmation: boolean;
}
type FieldName = keyof Draft;
type FieldErrors = Partial<Record<string, string[]>>;

const EMPTY: Draft = { label: '', subject: '', preheader: '', body: '', html_body: '', template_purpose: 'broadcast', default_confirmation: false };
/** How long typing pauses before the preview is asked again (docs/dashboard.md, "Templates"). */
const PREVIEW_DELAY_MS = 300;

const draftOf = (t: Template): Draft => ({
  label: t.label,
  subject: t.subject ?? '',
  preheader: t.preheader ?? '',
  body: t.body ?? '',
  html_body: t.html_body ?? '',
  template_purpose: t.template_purpose,
  default_confirmation: t.default_confirmation,
});

/** The API's `errors` object of a 422, when the answer has one (the field's messages as they come). */
function fieldErrorsOf(e: unknown): FieldErrors | undefined {
  if (!(e instanceof ApiError) || e.status !== 422) return undefined;
  const errors = (e.body as { errors?: unknown } | undefined)?.errors;
  return typeof errors === 'object' && errors !== null ? (errors as FieldErrors) : undefined;
}

/** Where liquidjs placed an error: its message ends with "line:L, col:C" (docs/templates.md, "Validation"). */
function positionOf(message: string): { line: number; column: number } | null {
  const match = /line:(\d+), col:(\d+)$/.exec(message);
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

/** The offset of a 1-based line and column in `text`. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  return Math.min(text.length, offset + column - 1);
}

/**
 * The API's messages for one field, under it; a Liquid error also names its line and column, and
 * a button puts the cursor there (keyboard users find the place without counting lines).
 */
function FieldMessages({ name, messages, onGoTo }: { name: string; messages: string[] | undefined; onGoTo?(line: number, column: number): void }) {
  if (!messages || messages.length === 0) return null;
  return (
    <div class="templates-field-error" id={`${name}-error`} data-field={name} aria-live="polite">
      {messages.map((m) => {
        const at = positionOf(m);
        return (
          <p key={m}>
            {at && <strong>{`Line ${at.line}, column ${at.column}: `}</strong>}
            {`${name} ${m}`}
            {at && onGoTo && (
              <>
                {' '}
                <button type="button" class="link" onClick={() => onGoTo(at.line, at.column)}>
                  Go to line {at.line}
                </button>
              </>
            )}
          </p>
        );
      })}
    </div>
  );
}

/**
 * Renders the draft's Liquid on the server (POST /templates/preview) as the user types, at most
 * once per pause; a later answer replaces an earlier one, never the reverse.
 */
function useLivePreview(draft: Draft | undefined) {
  const [rendered, setRendered] = useState<Rendered | undefined>(undefined);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const asked = useRef(0);
  // A confirmation email is its subject and body alone (docs/templates.md): only those are asked.
  const source =
    draft &&
    (draft.template_purpose === 'confirmation'
      ? { subject: draft.subject, body: draft.body, template_purpose: draft.template_purpose }
      : { subject: draft.subject, preheader: draft.preheader, body: draft.body, html_body: draft.html_body, template_purpose: draft.template_purpose });
  const key = JSON.stringify(source ?? null);
  useEffect(() => {
    if (!source) return;
    const ask = ++asked.current;
    const timer = setTimeout(() => {
      api<Rendered>('POST', '/templates/preview', { body: source })
        .then((answer) => {
          if (ask !== asked.current) return;
          setRendered(answer);
          setErrors({});
          setProblem(undefined);
        })
        .catch((e: unknown) => {
          if (ask !== asked.current) return;
          const fields = fieldErrorsOf(e);
          setErrors(fields ?? {});
          setProblem(fields ? undefined : errorMessage(e));
        });
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return { rendered, errors, problem };
}

/** The sandboxed preview frame (docs/dashboard.md, "Preview"), loaded once and sent each new HTML. */
function PreviewFrame({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    if (loaded) frame.current?.contentWindow?.postMessage({ html }, '*');
  }, [html, loaded]);
  return <iframe ref={frame} title="HTML version" sandbox="allow-scripts" src="/app/preview-frame.html" onLoad={() => setLoaded(true)} />;
}

/** A new template (/templates/new) or one template's editor (/templates/:id) with its live preview. */
export function TemplateEditor() {
  const { id } = useParams<{ id?: string }>();
  const isNew = id === undefined || id === 'new';
  const can = useCan();
  const writable = can('templates_write');
  const [, navigate] = useLocation();
  const [template, setTemplate] = useState<Template | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState<Draft | undefined>(isNew ? EMPTY : undefined);
  const [saveErrors, setSaveErrors] = useState<FieldErrors>({});
  const save = useAction();
  const other = useAction();
  const preview = useLivePreview(draft);
  const areas = { body: useRef<HTMLTextAreaElement>(null), html_body: useRef<HTMLTextAreaElement>(null) };

  useEffect(() => {
    if (isNew) return;
    api<Template>('GET', `/templates/${id}`)
      .then((t) => {
        setTemplate(t);
        setDraft(draftOf(t));
      })
      .catch((e: unknown) => setLoadError(errorMessage(e)));
  }, [id]);

  if (loadError) return <ErrorMessage message={loadError} />;
  if (!draft) return <Loading />;
  const d = draft;
  const set = (patch: Partial<Draft>) => setDraft({ ...d, ...patch });
  // A save's refusal for a field until the next save; the live preview's Liquid errors otherwise.
  const messagesFor = (name: FieldName) => saveErrors[name] ?? preview.errors[name];
  const described = (name: FieldName) => (messagesFor(name) ? { 'aria-describedby': `${name}-error`, 'aria-invalid': true } : {});
  const goTo = (name: 'body' | 'html_body') => (line: number, column: number) => {
    const area = areas[name].current;
    if (!area) return;
    const at = offsetOf(area.value, line, column);
    area.focus();
    area.setSelectionRange(at, at);
  };

  async function submit(event: Event) {
    event.preventDefault();
    setSaveErrors({});
    // An empty Liquid field is stored as none (null), as the API answers a field never given.
    const orNull = (value: string) => (value === '' ? null : value);
    const body = {
      template: {
        label: d.label,
        subject: orNull(d.subject),
        preheader: orNull(d.preheader),
        body: orNull(d.body),
        html_body: orNull(d.html_body),
        template_purpose: d.template_purpose,
        default_confirmation: d.template_purpose === 'confirmation' ? d.default_confirmation : false,
      },
    };
    let saved: Template | undefined;
    const ok = await save.run(
      async () => {
        try {
          saved = isNew ? await api<Template>('POST', '/templates', { body }) : await api<Template>('PATCH', `/templates/${id}`, { body });
        } catch (e) {
          setSaveErrors(fieldErrorsOf(e) ?? {});
          throw e;
        }
      },
      isNew ? undefined : 'Template saved.',
    );
    if (!ok || !saved) return;
    if (isNew) navigate(`/templates/${saved.id}`);
    else {
      setTemplate(saved);
      setDraft(draftOf(saved));
    }
  }
  async function remove() {
    if (!template || !window.confirm(`Delete the template “${template.label}”? Broadcasts written from it keep their content.`)) return;
    if (await other.run(() => api('DELETE', `/templates/${template.id}`))) navigate('/templates');
  }

  const rendered = preview.rendered;
  return (
    <section class="templates-editor">
      <p>
        <Link href="/templates">← Templates</Link>
      </p>
      <h1>{isNew ? 'New template' : (template?.label ?? '')}</h1>
      {!isNew && writable && (
        <div class="actions">
          <button type="button" class="danger" onClick={remove} disabled={other.busy}>
            Delete template
          </button>
        </div>
      )}
      <Feedback action={other} />
      <div class="builder">
        <form class="stack templates-form" onSubmit={submit} aria-label="Template">
          <Field label="Label">
            <input name="label" value={d.label} readOnly={!writable} onInput={(e) => set({ label: e.currentTarget.value })} {...described('label')} />
          </Field>
          <FieldMessages name="label" messages={messagesFor('label')} />
          <div class="row">
            <Field label="Purpose">
              <select
                name="template_purpose"
                value={d.template_purpose}
                disabled={!writable}
                onChange={(e) => set({ template_purpose: e.currentTarget.value as Draft['template_purpose'] })}
              >
                <option value="broadcast">Broadcast</option>
                <option value="confirmation">Confirmation (double opt-in)</option>
              </select>
            </Field>
            {d.template_purpose === 'confirmation' && (
              <label class="inline">
                <input
                  type="checkbox"
                  name="default_confirmation"
                  checked={d.default_confirmation}
                  disabled={!writable}
                  onChange={(e) => set({ default_confirmation: e.currentTarget.checked })}
                />{' '}
                Default confirmation template
              </label>
            )}
          </div>
          <FieldMessages name="template_purpose" messages={messagesFor('template_purpose')} />
          <FieldMessages name="default_confirmation" messages={messagesFor('default_confirmation')} />
          <Field label="Subject" hint="Liquid: {{ subscriber.first_name }}, {{ subscriber.custom_data.plan }}…">
            <input name="subject" value={d.subject} readOnly={!writable} onInput={(e) => set({ subject: e.currentTarget.value })} {...described('subject')} />
          </Field>
          <FieldMessages name="subject" messages={messagesFor('subject')} />
          {d.template_purpose === 'broadcast' && (
            <>
              <Field label="Preheader">
                <input
                  name="preheader"
                  value={d.preheader}
                  readOnly={!writable}
                  onInput={(e) => set({ preheader: e.currentTarget.value })}
                  {...described('preheader')}
                />
              </Field>
              <FieldMessages name="preheader" messages={messagesFor('preheader')} />
            </>
          )}
          <Field label="Body (text)">
            <textarea
              ref={areas.body}
              name="body"
              class="templates-code"
              rows={8}
              spellcheck={false}
              value={d.body}
              readOnly={!writable}
              onInput={(e) => set({ body: e.currentTarget.value })}
              {...described('body')}
            />
          </Field>
          <FieldMessages name="body" messages={messagesFor('body')} onGoTo={goTo('body')} />
          {d.template_purpose === 'broadcast' && (
            <>
              <Field label="HTML body">
                <textarea
                  ref={areas.html_body}
                  name="html_body"
                  class="templates-code"
                  rows={14}
                  spellcheck={false}
                  value={d.html_body}
                  readOnly={!writable}
                  onInput={(e) => set({ html_body: e.currentTarget.value })}
                  {...described('html_body')}
                />
              </Field>
              <FieldMessages name="html_body" messages={messagesFor('html_body')} onGoTo={goTo('html_body')} />
            </>
          )}
          {d.template_purpose === 'confirmation' && (
            <>
              {/* Kept when the purpose changes, so a save may still refuse them: shown even without their field. */}
              <FieldMessages name="preheader" messages={saveErrors.preheader} />
              <FieldMessages name="html_body" messages={saveErrors.html_body} />
            </>
          )}
          <Feedback action={save} />
          {writable && (
            <div class="actions">
              <button type="submit" class="primary" disabled={save.busy}>
                {isNew ? 'Create template' : 'Save template'}
              </button>
            </div>
          )}
        </form>
        <div class="builder-preview templates-preview">
          <h2>Preview</h2>
          <p class="muted small">Rendered by the API for a sample subscriber (Jane Doe) as you type; nothing is saved.</p>
          {preview.problem && <ErrorMessage message={preview.problem} />}
          {rendered && (
            <div class="preview" data-rendered-subject={rendered.subject}>
              <p>
                <strong>Subject:</strong> <span class="preview-subject">{rendered.subject}</span>
              </p>
              <PreviewFrame html={rendered.html} />
              <h3>Text version</h3>
              <pre class="preview-text">{rendered.text}</pre>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
