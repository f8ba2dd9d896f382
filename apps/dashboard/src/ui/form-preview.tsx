import { useEffect, useRef } from 'preact/hooks';
import { renderBlock as drawBlock } from '../../../api/src/public/forms/embed/dom';
import { FORM_CSS } from '../../../api/src/public/forms/form-styles';
import type { RenderBlock, WidgetType } from '../../../api/src/public/forms/render-model';
import { DEFAULT_AFTER, renderBlock, renderTheme } from '../../../api/src/public/forms/render-rules';
import type { OptInForm, OptInFormBlock } from './api';

/**
 * The live preview of an opt-in form (docs/dashboard.md, "Forms: the preview"): the embed script's
 * own DOM builder (`embed/dom.ts`), stylesheet (`form-styles.ts`) and block and theme rules
 * (`render-rules.ts`), imported from the api's public forms source (they import nothing), drawn from the form as the dashboard holds it, so an
 * unsaved edit shows at once. It lives in a shadow root whose styles are a constructed
 * stylesheet (CSSOM, which the dashboard's Content-Security-Policy allows); nothing is fetched,
 * no view is counted and the form does not submit.
 */

/** One block of the API's JSON, drawn by the public form's own rules. */
export function renderBlockOf(b: OptInFormBlock): RenderBlock | null {
  return renderBlock({
    blockType: b.block_type,
    textValue: b.text_value ?? null,
    inputFieldLabel: b.input_field_label ?? null,
    inputFieldPlaceholder: b.input_field_placeholder ?? null,
    inputFieldValueType: b.input_field_value_type ?? null,
    customFieldKey: b.custom_field_key ?? null,
    required: b.required,
    multiline: b.multiline,
    options: b.options ?? [],
    checkboxLabel: b.checkbox_label ?? null,
    topicId: b.topic_id ?? null,
    imageUrl: b.image_url ?? null,
    buttonLabel: b.button_label ?? null,
  });
}

let sheet: CSSStyleSheet | undefined;
function formSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(FORM_CSS);
  }
  return sheet;
}

/** What a preview draws: the form, or (after) what replaces it once a visitor has signed up. */
export type PreviewState = 'form' | 'after';
type Previewed = Pick<OptInForm, 'theme_settings' | 'opt_in_form_blocks' | 'opt_in_post_submission_blocks'>;

const drawn = (list: OptInFormBlock[]) =>
  list
    .slice()
    .sort((a, b) => a.position - b.position)
    .map(renderBlockOf)
    .filter((b): b is RenderBlock => b !== null);

/** Draws the form as `widget` into `root` (what the embed script's card and overlay build, without wiring). */
function draw(root: ShadowRoot, form: Previewed, widget: WidgetType, state: PreviewState): void {
  const t = renderTheme(form.theme_settings);
  const extra = widget === 'slide_in_panel' ? ' mc-slide' : widget === 'sticky_bar' ? ' mc-bar' : '';
  const box = document.createElement('div');
  box.className = `mc-form${extra}`;
  box.style.setProperty('--mc-accent', t.accent);
  box.style.setProperty('--mc-bg', t.background);
  box.style.setProperty('--mc-text', t.text);
  box.style.setProperty('--mc-button-text', t.buttonText);
  box.style.setProperty('--mc-radius', `${t.radius}px`);
  const blocks = drawn(form.opt_in_form_blocks);
  const formEl = document.createElement('form');
  formEl.addEventListener('submit', (event) => event.preventDefault());
  for (const block of blocks) {
    const node = drawBlock(block);
    if (node) formEl.append(node);
  }
  if (!blocks.some((b) => b.type === 'button')) {
    const button = document.createElement('button');
    button.type = 'submit';
    button.className = 'mc-submit';
    button.textContent = 'Sign Up';
    formEl.append(button);
  }
  if (state === 'after') {
    // As the embed script's success: the post-submission blocks (its default without any) in place of the form.
    const after = drawn(form.opt_in_post_submission_blocks);
    const done = document.createElement('div');
    done.className = 'mc-done';
    for (const block of after.length > 0 ? after : DEFAULT_AFTER) {
      const node = drawBlock(block);
      if (node) done.append(node);
    }
    box.append(done);
  } else {
    box.append(formEl);
  }
  const nodes: Node[] = [];
  if (widget === 'floating_button') {
    const fab = document.createElement('button');
    fab.type = 'button';
    fab.className = 'mc-form mc-submit mc-fab';
    fab.textContent = blocks.find((b) => b.type === 'button')?.label || 'Sign Up';
    fab.style.setProperty('--mc-accent', t.accent);
    fab.style.setProperty('--mc-button-text', t.buttonText);
    nodes.push(fab);
  }
  if (widget === 'popup_modal' || widget === 'full_page' || widget === 'floating_button') {
    const backdrop = document.createElement('div');
    backdrop.className = `mc-backdrop${widget === 'full_page' ? ' mc-full' : ''}`;
    backdrop.append(box);
    nodes.unshift(backdrop);
  } else {
    nodes.unshift(box);
  }
  root.replaceChildren(...nodes);
}

/**
 * The form drawn as `widget` in a stage the size of a small window: overlays (modal, slide-in,
 * bar, floating button, full page) are positioned inside the stage, not over the dashboard.
 */
export function FormPreview({ form, widget, state = 'form' }: { form: Previewed; widget: WidgetType; state?: PreviewState }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [formSheet()];
    draw(root, form, widget, state);
    // What is drawn now (the attributes above are set at render, the drawing after them).
    el.dataset.drawn = widget;
    el.dataset.drawnState = state;
  }, [form, widget, state]);
  return (
    <div
      class="form-preview"
      data-widget={widget}
      data-state={state}
      ref={host}
      role="region"
      aria-label={`Preview: ${widget.replace(/_/g, ' ')}${state === 'after' ? ', after sign-up' : ''}`}
    />
  );
}
