import type { OptInForm, OptInFormBlock } from '@mailcast/core';
import { WIDGET_TYPES, type FormRenderModel, type RenderBlock, type RenderTheme, type RenderTrigger, type WidgetType } from './render-model';

const num = (value: unknown, fallback: number, min: number, max: number) => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The trigger settings as the embed script reads them (defaults were applied by the model). */
export function formTrigger(form: OptInForm): RenderTrigger {
  const t = form.triggerSettings;
  return {
    trigger: t.trigger,
    delaySeconds: num(t.delaySeconds, 0, 0, 3600),
    scrollPercentage: num(t.scrollPercentage, 50, 0, 100),
    frequency: t.frequency,
    devices: [...t.devices],
  };
}

/** Cloudflare's Turnstile widget script (explicit rendering: the embed places the widget itself). */
export const TURNSTILE_SCRIPT_URL = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
/** A colour goes out only as a hex value, whatever was stored (docs/opt-in-forms.md, "Rendering"). */
const colour = (fallback: string, ...candidates: unknown[]) => candidates.find((c): c is string => typeof c === 'string' && HEX.test(c)) ?? fallback;

/** Theme colours from theme_settings.colors (several key spellings read), each a checked hex value. */
export function formTheme(form: OptInForm): RenderTheme {
  const theme = form.themeSettings;
  const c = (typeof theme.colors === 'object' && theme.colors !== null ? theme.colors : {}) as Record<string, unknown>;
  const layout = (typeof theme.layout === 'object' && theme.layout !== null ? theme.layout : {}) as Record<string, unknown>;
  return {
    accent: colour('#2563eb', c.button_background, c.button, c.primary, c.accent),
    background: colour('#ffffff', c.background, c.form_background),
    text: colour('#18181b', c.text),
    buttonText: colour('#ffffff', c.button_text),
    radius: Math.round(num(layout.border_radius ?? layout.radius, 6, 0, 48)),
  };
}

const IMAGE_URL = /^https?:\/\/[^\s"'<>]+$/i;

function options(value: readonly unknown[]): RenderBlock['options'] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((o: unknown) => {
    if (typeof o === 'string' || typeof o === 'number') return [{ value: String(o), label: String(o) }];
    if (typeof o === 'object' && o !== null) {
      const { value: v, label } = o as Record<string, unknown>;
      const val = typeof v === 'string' || typeof v === 'number' ? String(v) : typeof label === 'string' ? label : null;
      return val === null ? [] : [{ value: val, label: typeof label === 'string' ? label : val }];
    }
    return [];
  });
}

const INPUT_NAMES: Record<string, string> = { email: 'email', first_name: 'first_name', last_name: 'last_name', name: 'name' };
const INPUT_LABELS: Record<string, string> = { email: 'Email', first_name: 'First name', last_name: 'Last name', name: 'Name' };

/**
 * One stored block as the visitor sees it, or null for a block that cannot be shown (a custom
 * field without its key, an image without an http(s) address). custom_css is never applied:
 * stored CSS could restyle or hide the page around the form (docs/opt-in-forms.md, "Rendering").
 */
export function renderBlock(b: OptInFormBlock): RenderBlock | null {
  const base: RenderBlock = {
    type: 'text',
    text: text(b.textValue),
    label: '',
    placeholder: text(b.inputFieldPlaceholder),
    name: '',
    inputType: 'text',
    required: b.required,
    multiline: false,
    options: [],
    imageUrl: '',
  };
  const customName = b.customFieldKey ? `custom_data[${b.customFieldKey}]` : null;
  switch (b.blockType) {
    case 'heading':
    case 'text':
      return { ...base, type: b.blockType };
    case 'divider':
    case 'spacer':
      return { ...base, type: b.blockType, text: '' };
    case 'image':
      return b.imageUrl && IMAGE_URL.test(b.imageUrl) ? { ...base, type: 'image', imageUrl: b.imageUrl } : null;
    case 'input_field': {
      const kind = b.inputFieldValueType ?? 'email';
      const name = INPUT_NAMES[kind] ?? customName;
      if (!name) return null;
      return {
        ...base,
        type: 'field',
        name,
        label: text(b.inputFieldLabel) || INPUT_LABELS[kind] || b.customFieldKey || '',
        inputType: kind === 'email' ? 'email' : 'text',
        required: kind === 'email' || b.required,
        multiline: kind === 'custom' && b.multiline,
      };
    }
    case 'custom_field':
      return customName ? { ...base, type: 'field', name: customName, label: text(b.inputFieldLabel) || b.customFieldKey!, multiline: b.multiline } : null;
    case 'checkbox':
      return customName ? { ...base, type: 'checkbox', name: customName, label: text(b.checkboxLabel) || text(b.inputFieldLabel) || text(b.textValue) } : null;
    case 'dropdown':
    case 'radio_group':
      return customName
        ? { ...base, type: b.blockType, name: customName, label: text(b.inputFieldLabel) || text(b.textValue), options: options(b.options) }
        : null;
    case 'topic':
      return b.topicId !== null
        ? { ...base, type: 'checkbox', name: `topics[${b.topicId}]`, label: text(b.checkboxLabel) || text(b.inputFieldLabel) || text(b.textValue) }
        : null;
    case 'button':
      return { ...base, type: 'button', label: text(b.buttonLabel) || 'Sign Up', required: false };
    default:
      return null;
  }
}

const AFTER_TYPES = new Set(['heading', 'text', 'image', 'divider', 'spacer']);

export const DEFAULT_AFTER: RenderBlock[] = [
  {
    type: 'text',
    text: 'Thank you for signing up!',
    label: '',
    placeholder: '',
    name: '',
    inputType: 'text',
    required: false,
    multiline: false,
    options: [],
    imageUrl: '',
  },
];

export function isWidgetType(value: string): value is WidgetType {
  return (WIDGET_TYPES as readonly string[]).includes(value);
}

/** The JSON the embed script renders, for the form row a visitor was given. */
export function renderModel(form: OptInForm, publicUrl: string, turnstileOn: boolean, now: number): FormRenderModel {
  const security = form.securitySettings;
  const siteKey = security.turnstile && turnstileOn ? security.turnstileSiteKey || null : null;
  const base = `${publicUrl}/f/${form.identifier}`;
  const after = form.postSubmissionBlocks
    .filter((b) => AFTER_TYPES.has(b.blockType))
    .map(renderBlock)
    .filter((b): b is RenderBlock => b !== null);
  return {
    identifier: form.identifier,
    widget: isWidgetType(form.widgetType) ? form.widgetType : 'inline_embed',
    viewUrl: `${base}/view`,
    submitUrl: `${base}/submit`,
    trigger: formTrigger(form),
    honeypot: security.honeypot,
    turnstileSiteKey: siteKey,
    turnstileScript: siteKey === null ? null : TURNSTILE_SCRIPT_URL,
    theme: formTheme(form),
    blocks: form.formBlocks.map(renderBlock).filter((b): b is RenderBlock => b !== null),
    after: after.length > 0 ? after : DEFAULT_AFTER,
    servedAt: now,
  };
}

/**
 * Whether a request from `origin` may use the form (docs/opt-in-forms.md, "Protections"): no
 * Origin header (a direct POST, the hosted page's own form without script) or the product's own
 * origin always may; otherwise its host must be one of allowed_embedding_domains when that list
 * is not empty. A listed domain also admits its subdomains.
 */
export function originAllowed(form: OptInForm, origin: string | undefined, ownOrigin: string): boolean {
  if (origin === undefined || origin === ownOrigin) return true;
  const domains = form.allowedEmbeddingDomains.map((d) => normalizeDomain(d)).filter((d) => d !== '');
  if (domains.length === 0) return true;
  let host: string;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** `https://www.example.com/path` or `Example.com` → the bare lower-case host. */
function normalizeDomain(entry: string): string {
  const trimmed = entry.trim().toLowerCase();
  if (trimmed === '') return '';
  try {
    return new URL(trimmed.includes('://') ? trimmed : `http://${trimmed}`).hostname;
  } catch {
    return trimmed;
  }
}
