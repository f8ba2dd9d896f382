import { useEffect, useRef } from 'preact/hooks';
import { renderBlock as drawBlock } from '../../../api/src/public/forms/embed/dom';
import { FORM_CSS } from '../../../api/src/public/forms/form-styles';
import type { RenderBlock, RenderTheme, WidgetType } from '../../../api/src/public/forms/render-model';
import type { OptInForm, OptInFormBlock } from './api';

/**
 * The live preview of an opt-in form (docs/dashboard.md, "Forms: the preview"): the embed script's
 * own DOM builder (`embed/dom.ts`) and stylesheet (`form-styles.ts`), imported from the api's
 * public forms source (both import nothing), drawn from the form as the dashboard holds it, so an
 * unsaved edit shows at once. It lives in a shadow root whose styles are a constructed
 * stylesheet (CSSOM, which the dashboard's Content-Security-Policy allows); nothing is fetched,
 * no view is counted and the form does not submit.
 */

const IMAGE_URL = /^https?:\/\/[^\s"'<>]+$/i;
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const INPUT_NAMES: Record<string, string> = { email: 'email', first_name: 'first_name', last_name: 'last_name', name: 'name' };
const INPUT_LABELS: Record<string, string> = { email: 'Email', first_name: 'First name', last_name: 'Last name', name: 'Name' };
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** One block of the API's JSON as the public form's render model has it (the api's public-form.ts, for the JSON field names). */
export function renderBlockOf(b: OptInFormBlock): RenderBlock | null {
  const base: RenderBlock = {
    type: 'text',
    text: text(b.text_value),
    label: '',
    placeholder: text(b.input_field_placeholder),
    name: '',
    inputType: 'text',
    required: b.required,
    multiline: false,
    options: [],
    imageUrl: '',
  };
  const customName = b.custom_field_key ? `custom_data[${b.custom_field_key}]` : null;
  const options = (b.options ?? []).map((o) => ({ value: String(o), label: String(o) }));
  switch (b.block_type) {
    case 'heading':
    case 'text':
      return { ...base, type: b.block_type };
    case 'divider':
    case 'spacer':
      return { ...base, type: b.block_type, text: '' };
    case 'image':
      return b.image_url && IMAGE_URL.test(b.image_url) ? { ...base, type: 'image', imageUrl: b.image_url } : null;
    case 'input_field': {
      const kind = b.input_field_value_type ?? 'email';
      const name = INPUT_NAMES[kind] ?? customName;
      if (!name) return null;
      return {
        ...base,
        type: 'field',
        name,
        label: text(b.input_field_label) || INPUT_LABELS[kind] || b.custom_field_key || '',
        inputType: kind === 'email' ? 'email' : 'text',
        required: kind === 'email' || b.required,
        multiline: kind === 'custom' && b.multiline,
      };
    }
    case 'custom_field':
      return customName ? { ...base, type: 'field', name: customName, label: text(b.input_field_label) || b.custom_field_key!, multiline: b.multiline } : null;
    case 'checkbox':
      return customName
        ? { ...base, type: 'checkbox', name: customName, label: text(b.checkbox_label) || text(b.input_field_label) || text(b.text_value) }
        : null;
    case 'dropdown':
    case 'radio_group':
      return customName ? { ...base, type: b.block_type, name: customName, label: text(b.input_field_label) || text(b.text_value), options } : null;
    case 'topic':
      return b.topic_id !== null
        ? { ...base, type: 'checkbox', name: `topics[${b.topic_id}]`, label: text(b.checkbox_label) || text(b.input_field_label) || text(b.text_value) }
        : null;
    case 'button':
      return { ...base, type: 'button', label: text(b.button_label) || 'Sign Up', required: false };
    default:
      return null;
  }
}

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
const colour = (fallback: string, ...candidates: unknown[]) => candidates.find((c): c is string => typeof c === 'string' && HEX.test(c)) ?? fallback;

/** theme_settings read as the public form reads it: hex colours only, several key spellings. */
export function themeOf(form: Pick<OptInForm, 'theme_settings'>): RenderTheme {
  const c = record(form.theme_settings.colors);
  const layout = record(form.theme_settings.layout);
  const radius = Number(layout.border_radius ?? layout.radius);
  return {
    accent: colour('#2563eb', c.button_background, c.button, c.primary, c.accent),
    background: colour('#ffffff', c.background, c.form_background),
    text: colour('#18181b', c.text),
    buttonText: colour('#ffffff', c.button_text),
    radius: Number.isFinite(radius) ? Math.round(Math.min(48, Math.max(0, radius))) : 6,
  };
}

let sheet: CSSStyleSheet | undefined;
function formSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(FORM_CSS);
  }
  return sheet;
}

/** Draws the form as `widget` into `root` (what the embed script's card and overlay build, without wiring). */
function draw(root: ShadowRoot, form: Pick<OptInForm, 'theme_settings' | 'opt_in_form_blocks'>, widget: WidgetType): void {
  const t = themeOf(form);
  const extra = widget === 'slide_in_panel' ? ' mc-slide' : widget === 'sticky_bar' ? ' mc-bar' : '';
  const box = document.createElement('div');
  box.className = `mc-form${extra}`;
  box.style.setProperty('--mc-accent', t.accent);
  box.style.setProperty('--mc-bg', t.background);
  box.style.setProperty('--mc-text', t.text);
  box.style.setProperty('--mc-button-text', t.buttonText);
  box.style.setProperty('--mc-radius', `${t.radius}px`);
  const blocks = form.opt_in_form_blocks
    .slice()
    .sort((a, b) => a.position - b.position)
    .map(renderBlockOf)
    .filter((b): b is RenderBlock => b !== null);
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
  box.append(formEl);
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
export function FormPreview({ form, widget }: { form: Pick<OptInForm, 'theme_settings' | 'opt_in_form_blocks'>; widget: WidgetType }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [formSheet()];
    draw(root, form, widget);
    // What is drawn now (the attribute above is set at render, the drawing after it).
    el.dataset.drawn = widget;
  }, [form, widget]);
  return <div class="form-preview" data-widget={widget} ref={host} role="region" aria-label={`Preview: ${widget.replace(/_/g, ' ')}`} />;
}
