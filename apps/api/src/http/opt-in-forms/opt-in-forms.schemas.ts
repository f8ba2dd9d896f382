import {
  BLOCK_TYPES,
  FORM_DEVICES,
  FORM_FREQUENCIES,
  FORM_TRIGGERS,
  FORM_TYPES,
  INPUT_VALUE_TYPES,
  ValidationError,
  WIDGET_TYPES,
  type BlockAttributesInput,
  type BlockInput,
  type BlockListInput,
  type OptInFormInput,
  type OptInFormListFilter,
} from '@mailcast/core';
import Joi from 'joi';
import { keysOf, type BodyShape, type Warning } from '../warnings';

/**
 * Request shapes of the opt-in form routes, flat or under `opt_in_form` (docs/opt-in-forms.md).
 * Every problem is answered at once as one `{error}` naming each field (docs/opt-in-forms.md, "The API").
 */
const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);
const text = (max: number) => Joi.string().max(max);
const words = (list: readonly string[]) =>
  Joi.string()
    .valid(...list)
    .messages({ '*': `{#label} must be one of ${list.join(', ')}` });

/** A hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa. */
export const HEX_COLOUR = /^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
/** What could leave a CSS value and inject rules or script (docs/opt-in-forms.md "Theme"). */
const CSS_ESCAPE = /[;{}<>]|url\(|expression\(/i;

const group = (keys: Record<string, Joi.Schema>, description: string) =>
  Joi.object(Object.fromEntries(Object.entries(keys).map(([k, s]) => [k, s.allow(null)])))
    .allow(null)
    .description(`${description} A PATCH merges it into the current object; null deletes a key (back to its default).`);

const themeGroup = Joi.object().unknown(true).allow(null);

export const formFields = Joi.object({
  label: text(255).allow('').description('Required on create; not blank.'),
  form_type: words(FORM_TYPES).description('Default embed.'),
  widget_type: words(WIDGET_TYPES).description('Default inline_embed.'),
  enabled: Joi.boolean().description('Default true.'),
  allowed_embedding_domains: Joi.alternatives()
    .try(Joi.array().items(text(255)).max(1_000), text(100_000).allow(''))
    .allow(null)
    .description('Hosts allowed to embed the form, as an array or one per line; empty: any.')
    .meta({ 'x-openapi': { type: ['array', 'string', 'null'], items: { type: 'string' } } }),
  theme_settings: group(
    { colors: themeGroup, typography: themeGroup, layout: themeGroup, effects: themeGroup },
    'Colours are hex; no value may hold ; { } < > url( expression(.',
  )
    .unknown(true)
    .meta({ 'x-openapi': { type: ['object', 'null'], additionalProperties: true } }),
  automation_settings: group(
    {
      tag_list: Joi.array().items(text(255)).max(1_000),
      sequence_ids: Joi.array().items(id).max(1_000).description('Sequences of this channel.'),
      double_opt_in: Joi.boolean().description('Default false.'),
      send_welcome_email: Joi.boolean().description('Default false.'),
    },
    'What a sign-up does.',
  ),
  security_settings: group(
    {
      honeypot: Joi.boolean().description('Default true.'),
      time_validation: Joi.boolean().description('Default true.'),
      min_submit_seconds: Joi.number().integer().min(0).max(3_600).description('Default 3.'),
      rate_limit: Joi.boolean().description('Default true.'),
      rate_limit_max: Joi.number().integer().min(1).max(100_000).description('Default 5.'),
      rate_limit_window_minutes: Joi.number().integer().min(1).max(10_080).description('Default 60.'),
      turnstile: Joi.boolean().description('Default false.'),
      turnstile_site_key: text(255),
    },
    'Guards of the public submission.',
  ),
  trigger_settings: group(
    {
      trigger: words(FORM_TRIGGERS).description('Default immediate.'),
      delay_seconds: Joi.number().integer().min(0).max(86_400).description('Default 0.'),
      scroll_percentage: Joi.number().integer().min(0).max(100).description('Default 50.'),
      frequency: words(FORM_FREQUENCIES).description('Default every_visit (always means the same).'),
      devices: Joi.array().items(words(FORM_DEVICES)).max(3).description('Default all three.'),
    },
    'When a widget shows.',
  ),
  widget_settings: Joi.object().unknown(true).allow(null).description('Stored as sent (merged on PATCH).'),
  confirmation_email_template_id: id.allow(null).description("A template of this channel; else the channel's default."),
  welcome_email_template_id: id.allow(null).description('A template of this channel.'),
  confirmation_redirect_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2_048)
    .allow(null, '')
    .messages({ 'string.uri': '{#label} must be an http or https URL', 'string.uriCustomScheme': '{#label} must be an http or https URL' }),
  include_unsubscribe_link_in_confirmation: Joi.boolean().description('Default true.'),
  variant_name: text(255).description('A variant only (PATCH).'),
  variant_weight: Joi.number().integer().min(0).max(100).description('A variant only (PATCH): share of visitors, 0 to 100.'),
  opt_in_form_blocks: Joi.array()
    .items(Joi.object())
    .max(200)
    .description('Replaces the form view.')
    .meta({ 'x-openapi': { type: 'array', items: { $ref: '#/components/schemas/OptInFormBlockInput' } } }),
  opt_in_post_submission_blocks: Joi.array()
    .items(Joi.object())
    .max(200)
    .description('Replaces what follows a sign-up (heading, text, image, divider, spacer).')
    .meta({ 'x-openapi': { type: 'array', items: { $ref: '#/components/schemas/OptInFormBlockInput' } } }),
  opt_in_form_blocks_attributes: Joi.array()
    .items(Joi.object())
    .max(200)
    .description('Edits the form view by block: with id updates it (with _destroy: true deletes it), without id adds one.')
    .meta({ 'x-openapi': { type: 'array', items: { $ref: '#/components/schemas/OptInFormBlockAttributes' } } }),
  opt_in_post_submission_blocks_attributes: Joi.array()
    .items(Joi.object())
    .max(200)
    .description('As opt_in_form_blocks_attributes, for what follows a sign-up.')
    .meta({ 'x-openapi': { type: 'array', items: { $ref: '#/components/schemas/OptInFormBlockAttributes' } } }),
});

/** One block as written. */
export const blockFields = Joi.object({
  block_type: words(BLOCK_TYPES).description('Default text.'),
  position: Joi.number().integer().min(0).max(10_000).description('Default: its place in the list.'),
  text_value: text(10_000).allow(null),
  input_field_label: text(255).allow(null),
  input_field_placeholder: text(255).allow(null),
  input_field_value_type: words(INPUT_VALUE_TYPES).allow(null),
  custom_field_key: text(255).allow(null).description('^[a-z][a-z0-9_]*$'),
  required: Joi.boolean(),
  multiline: Joi.boolean(),
  options: Joi.array().items(text(255)).max(200),
  checkbox_label: text(1_000).allow(null),
  topic_id: id.allow(null).description('A topic of this channel, at most once per form.'),
  image_url: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2_048)
    .allow(null)
    .messages({ 'string.uri': '{#label} must be an http or https URL', 'string.uriCustomScheme': '{#label} must be an http or https URL' }),
  button_label: text(255).allow(null).description('Default "Sign Up".'),
  custom_css: text(10_000).allow(null),
});
export const blockAttributeFields = blockFields.keys({ id: id.description('A block of this list.'), _destroy: Joi.boolean() });

export const variantFields = Joi.object({
  name: text(255).allow('', null).description('Default the next free "Variant B", "Variant C"…'),
  weight: Joi.number().integer().min(0).max(100).description('Share of visitors, 0 to 100; default 50.'),
});
export const duplicateFields = Joi.object({ label: text(255).allow('', null).description('Default "<label> (Copy)".') });

export const FORM_BODY: BodyShape = { key: 'opt_in_form', fields: keysOf(formFields) };
export const VARIANT_BODY: BodyShape = { key: 'variant', fields: keysOf(variantFields) };
export const DUPLICATE_BODY: BodyShape = { key: 'opt_in_form', fields: keysOf(duplicateFields) };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unwrap(body: unknown, key: string): Record<string, unknown> {
  const top = isObject(body) ? body : {};
  return isObject(top[key]) ? (top[key] as Record<string, unknown>) : top;
}

/** Joi's problems as one message, each led by its field's path. */
function check<T>(schema: Joi.Schema, value: unknown, prefix = ''): T {
  const { error, value: checked } = schema.validate(value, { abortEarly: false, convert: false, errors: { wrap: { label: false } } });
  if (error) {
    throw new ValidationError(
      error.details
        .map((d) => {
          const path = prefix + d.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
          return `${path.replace(/^\./, '')} ${d.message.replace(/^\S+ /, '')}`;
        })
        .join('; '),
    );
  }
  return checked as T;
}

/** Theme values: colours hex, and nothing anywhere that could break out of a CSS value. */
function themeProblems(theme: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, path: string, colour: boolean) => {
    if (value === null || value === undefined) return;
    if (isObject(value)) for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, colour);
    else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, colour));
    else if (typeof value === 'string' && CSS_ESCAPE.test(value)) problems.push(`${path} must not contain ; { } < > url( or expression(`);
    else if (colour && (typeof value !== 'string' || !HEX_COLOUR.test(value))) problems.push(`${path} must be a hex colour (#rrggbb)`);
  };
  for (const [k, v] of Object.entries(theme)) walk(v, `theme_settings.${k}`, k === 'colors');
  return problems;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function block(raw: unknown, path: string, withId: boolean): BlockAttributesInput {
  const v = check<Record<string, unknown>>((withId ? blockAttributeFields : blockFields).unknown(false), raw, path);
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) {
    if (k === '_destroy') out.destroy = value;
    else out[camel(k)] = value;
  }
  return out as BlockAttributesInput;
}

function blockList(v: Record<string, unknown>, key: string): BlockListInput | undefined {
  const replace = v[key] as unknown[] | undefined;
  const edit = v[`${key}_attributes`] as unknown[] | undefined;
  if (replace !== undefined && edit !== undefined) throw new ValidationError(`${key} and ${key}_attributes cannot both be given`);
  if (replace !== undefined) return { replace: replace.map((b, i) => block(b, `${key}[${i}]`, false) as BlockInput) };
  if (edit !== undefined) return { edit: edit.map((b, i) => block(b, `${key}_attributes[${i}]`, true)) };
  return undefined;
}

/** `allowed_embedding_domains` as an array or one per line: trimmed, blanks dropped, each once. */
function domains(value: unknown): string[] {
  const list = typeof value === 'string' ? value.split(/\r?\n/) : ((value as string[] | null) ?? []);
  return [...new Set(list.map((d) => d.trim().toLowerCase()).filter((d) => d !== ''))];
}

export function formBody(body: unknown): OptInFormInput {
  const v = check<Record<string, unknown>>(formFields.unknown(true), unwrap(body, 'opt_in_form'));
  const problems = isObject(v.theme_settings) ? themeProblems(v.theme_settings) : [];
  if (problems.length > 0) throw new ValidationError(problems.join('; '));
  const a: OptInFormInput['attributes'] = {};
  if (v.label !== undefined) a.label = v.label as string;
  if (v.form_type !== undefined) a.formType = v.form_type as never;
  if (v.widget_type !== undefined) a.widgetType = v.widget_type as never;
  if (v.enabled !== undefined) a.enabled = v.enabled as boolean;
  if (v.allowed_embedding_domains !== undefined) a.allowedEmbeddingDomains = domains(v.allowed_embedding_domains);
  if (v.confirmation_email_template_id !== undefined) a.confirmationEmailTemplateId = v.confirmation_email_template_id as number | null;
  if (v.welcome_email_template_id !== undefined) a.welcomeEmailTemplateId = v.welcome_email_template_id as number | null;
  if (v.confirmation_redirect_url !== undefined) a.confirmationRedirectUrl = (v.confirmation_redirect_url as string | null) || null;
  if (v.include_unsubscribe_link_in_confirmation !== undefined) a.includeUnsubscribeLinkInConfirmation = v.include_unsubscribe_link_in_confirmation as boolean;
  const settings: OptInFormInput['settings'] = {};
  for (const g of ['theme_settings', 'automation_settings', 'security_settings', 'trigger_settings', 'widget_settings'] as const) {
    if (v[g] !== undefined) settings[g] = v[g] as Record<string, unknown> | null;
  }
  const variant =
    v.variant_name !== undefined || v.variant_weight !== undefined
      ? {
          ...(v.variant_name !== undefined ? { name: v.variant_name as string } : {}),
          ...(v.variant_weight !== undefined ? { weight: v.variant_weight as number } : {}),
        }
      : undefined;
  const formBlocks = blockList(v, 'opt_in_form_blocks');
  const postSubmissionBlocks = blockList(v, 'opt_in_post_submission_blocks');
  return {
    attributes: a,
    settings,
    ...(formBlocks ? { formBlocks } : {}),
    ...(postSubmissionBlocks ? { postSubmissionBlocks } : {}),
    ...(variant ? { variant } : {}),
  };
}

export function variantBody(body: unknown): { name?: string; weight?: number } {
  const v = check<{ name?: string | null; weight?: number }>(variantFields.unknown(true), unwrap(body, 'variant'));
  return { ...(v.name ? { name: v.name } : {}), ...(v.weight !== undefined ? { weight: v.weight } : {}) };
}

export function duplicateBody(body: unknown): { label?: string } {
  const v = check<{ label?: string | null }>(duplicateFields.unknown(true), unwrap(body, 'opt_in_form'));
  return v.label ? { label: v.label } : {};
}

export const listQuery = Joi.object({
  page: Joi.number().integer().min(1).max(1_000_000).description('Page, from 1; 250 forms a page.'),
  filter: Joi.string().max(255).description('Only forms whose label contains this (case-insensitive).'),
  widget_type: words(WIDGET_TYPES).description('Only forms of this widget type.'),
  enabled: Joi.boolean().description('Only enabled (true) or disabled (false) forms.'),
});

export function listParams(query: unknown): OptInFormListFilter & { page: number } {
  const { value, error } = listQuery.unknown(true).validate(query ?? {}, { convert: true, abortEarly: false, errors: { wrap: { label: false } } });
  if (error) throw new ValidationError(error.details.map((d) => d.message).join('; '));
  const v = value as { page?: number; filter?: string; widget_type?: OptInFormListFilter['widgetType']; enabled?: boolean };
  return {
    page: v.page ?? 1,
    ...(v.filter !== undefined ? { label: v.filter } : {}),
    ...(v.widget_type !== undefined ? { widgetType: v.widget_type } : {}),
    ...(v.enabled !== undefined ? { enabled: v.enabled } : {}),
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** A calendar date (YYYY-MM-DD, or an ISO instant's date part); null when not a real date. */
export function parseDate(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const m = DATE.exec(raw.trim());
  if (!m) return null;
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  const t = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== date ? null : date;
}

/** start_date and end_date: an unparsable one is ignored (the default stands) with a warning. */
export function analyticsQuery(query: unknown): { startDate?: string; endDate?: string; warnings: Warning[] } {
  const q = isObject(query) ? query : {};
  const warnings: Warning[] = [];
  const out: { startDate?: string; endDate?: string } = {};
  for (const [param, key] of [
    ['start_date', 'startDate'],
    ['end_date', 'endDate'],
  ] as const) {
    if (q[param] === undefined || q[param] === '') continue;
    const date = parseDate(q[param]);
    if (date === null) warnings.push({ code: 'parameter_ignored', param, message: `${param} is not a date (YYYY-MM-DD); the default was used` });
    else out[key] = date;
  }
  return { ...out, warnings };
}
