import type { RenderBlock, RenderTheme } from './render-model';

/**
 * How a stored block and theme become what the visitor sees (docs/opt-in-forms.md, "Rendering"):
 * one definition for the public form (public-form.ts, from the core model) and the dashboard's
 * live preview (from the API's JSON), so the preview shows what is published. It imports nothing
 * but the render model's types: the dashboard bundles it.
 */

export const num = (value: unknown, fallback: number, min: number, max: number) => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : fallback;
};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
/** A colour goes out only as a hex value, whatever was stored (docs/opt-in-forms.md, "Rendering"). */
const colour = (fallback: string, ...candidates: unknown[]) => candidates.find((c): c is string => typeof c === 'string' && HEX.test(c)) ?? fallback;

/** Theme colours from theme_settings.colors (several key spellings read), each a checked hex value. */
export function renderTheme(themeSettings: Record<string, unknown>): RenderTheme {
  const c = record(themeSettings.colors);
  const layout = record(themeSettings.layout);
  return {
    accent: colour('#2563eb', c.button_background, c.button, c.primary, c.accent),
    background: colour('#ffffff', c.background, c.form_background),
    text: colour('#18181b', c.text),
    buttonText: colour('#ffffff', c.button_text),
    radius: Math.round(num(layout.border_radius ?? layout.radius, 6, 0, 48)),
  };
}

/** The fields of a stored block the rendering reads (the core model's names). */
export interface BlockSource {
  blockType: string;
  textValue: string | null;
  inputFieldLabel: string | null;
  inputFieldPlaceholder: string | null;
  inputFieldValueType: string | null;
  customFieldKey: string | null;
  required: boolean;
  multiline: boolean;
  options: readonly unknown[];
  checkboxLabel: string | null;
  topicId: number | null;
  imageUrl: string | null;
  buttonLabel: string | null;
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
export function renderBlock(b: BlockSource): RenderBlock | null {
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
      return { ...base, type: b.blockType as 'heading' | 'text' };
    case 'divider':
    case 'spacer':
      return { ...base, type: b.blockType as 'divider' | 'spacer', text: '' };
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
        ? {
            ...base,
            type: b.blockType as 'dropdown' | 'radio_group',
            name: customName,
            label: text(b.inputFieldLabel) || text(b.textValue),
            options: options(b.options),
          }
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

/** What replaces the form after a sign-up when the form has no post-submission blocks. */
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
