import {
  ValidationError,
  type CreateSubscriberInput,
  type DoubleOptInOptions,
  type SubscriberFields,
  type SubscriberFilter,
  type UpdateSubscriberInput,
} from '@mailcast/core';
import { parseCustomDataFilterValue } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/*
 * The HTTP edge of the subscriber routes: request shapes in, typed use-case input out. Domain
 * rules (what a valid address is, normalisation) stay in the domain; joi only checks shapes.
 */

export const TAG_LIST_REFUSED = 'tag_list is not supported; use tags';
export const TAGS_REQUIRED = 'tags parameter is required';
export const EMAIL_REQUIRED = 'email parameter is required';

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_TEXT = 1000;
const text = Joi.string().max(MAX_TEXT).allow('', null);
const tags = Joi.array().items(Joi.string().trim().min(1).max(255)).max(1000);

// Messages in the spec's {errors: {field: [...]}} style: the field is the key, the message the rest.
const MESSAGES = {
  'any.required': "can't be blank",
  'string.empty': "can't be blank",
  'string.base': 'must be a string',
  'string.max': 'is too long (maximum is {#limit} characters)',
  'string.min': "can't be blank",
  'array.base': 'must be an array of strings',
  'array.max': 'has too many entries (maximum is {#limit})',
  'object.base': 'must be an object',
  'date.base': 'must be an ISO 8601 datetime',
  'date.format': 'must be an ISO 8601 datetime',
  'boolean.base': 'must be true or false',
  'number.base': 'must be an integer',
  'number.integer': 'must be an integer',
  'number.min': 'must be a positive integer',
  'number.unsafe': 'must be an integer',
  'alternatives.types': 'must be true or an object of options',
};

const fieldKeys = {
  first_name: text,
  last_name: text,
  ip_address: text.description('IP address captured at signup.'),
  source: Joi.string().trim().min(1).max(255).description('How the subscriber was added, e.g. api_subscription, import, form.'),
  tags,
  custom_data: Joi.object().unknown(true).description('Arbitrary key-value JSON.'),
};

/** A create body's subscriber fields (the OpenAPI document's SubscriberCreateInput). */
export const createFieldsSchema = Joi.object({
  email: Joi.string().max(MAX_TEXT).required().description('Required; syntactic check only.'),
  subscribed_at: Joi.date().iso().description('Overrides the subscription time.'),
  // Honoured on create only: an import of inactive subscribers stays inactive.
  is_active: Joi.boolean()
    .description('`false` creates the subscriber inactive (an existing one is updated and left inactive).')
    .meta({ 'x-openapi': { default: true } }),
  unsubscribed_at: Joi.date()
    .iso()
    .description('Creates the subscriber unsubscribed (and on the channel suppression list), sending nothing. Not in the future; not with `is_active: true`.'),
  confirmed_at: Joi.date().iso().description('Admin (cross-channel) tokens only; a channel token gets a `parameter_ignored` warning.'),
  ...fieldKeys,
  // The use case fills it in, not joi: a create that updates an existing subscriber keeps its source.
  source: fieldKeys.source.meta({ 'x-openapi': { default: 'api_subscription' } }),
})
  .unknown(true)
  .description('`tag_list` is refused with 422 `{"error": "tag_list is not supported; use tags"}`.');

/** An update body's subscriber fields (SubscriberUpdateInput). */
export const updateFieldsSchema = Joi.object({
  email: Joi.string().max(MAX_TEXT).description('Identifies the subscriber, unless a top-level `email` is given.'),
  ...fieldKeys,
})
  .unknown(true)
  .description('`tags` and `custom_data` replace the existing values. `tag_list` is refused with 422.');

/** What create and update bodies may carry; anything else is answered with a warning. */
export const SUBSCRIBER_CREATE_BODY: BodyShape = {
  key: 'subscriber',
  fields: keysOf(createFieldsSchema),
  options: ['double_opt_in', 'confirmation_template_id'],
};
export const SUBSCRIBER_UPDATE_BODY: BodyShape = { key: 'subscriber', fields: keysOf(updateFieldsSchema), options: ['email', 'custom_data_mode'] };

export const CUSTOM_DATA_MODE_INVALID = 'custom_data_mode must be replace or merge';

/** The update's top-level `custom_data_mode` (docs/subscribers.md, "custom_data_mode"). */
export const customDataModeSchema = Joi.string()
  .valid('replace', 'merge')
  .description(
    '`replace` (default): custom_data is stored as sent. `merge`: the sent top-level keys are set, a null deletes its key, the others are kept; nested values are replaced whole.',
  )
  .meta({ 'x-openapi': { default: 'replace' } });

const templateId = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);

/** The options object of `double_opt_in` (DoubleOptInOptions). */
export const doubleOptInOptionsSchema = Joi.object({
  reply_to: Joi.string().email({ tlds: false }).max(MAX_TEXT).allow(null).description('Reply-to of the confirmation email.'),
  confirmation_template_id: templateId.allow(null).description("Confirmation template; default: the channel's default template."),
  include_unsubscribe_link: Joi.boolean().meta({ 'x-openapi': { default: true } }),
})
  .unknown(true)
  .description('Options of the confirmation email.');

/** The create body's parameters beside the subscriber, at the top level. */
export const doubleOptInSchema = Joi.object({
  double_opt_in: Joi.alternatives()
    .try(Joi.boolean(), doubleOptInOptionsSchema.meta({ 'x-openapi': { $ref: '#/components/schemas/DoubleOptInOptions' } }))
    .description('Double opt-in: `true`, or an object of options. A confirmation email is sent; the subscriber receives no broadcast until confirmed.'),
  confirmation_template_id: templateId.allow(null).description('Confirmation template (may also be given inside double_opt_in).'),
}).unknown(true);

/** Joi details → the spec's field-keyed errors (a nested path is named by its first segment). */
function fieldErrors(error: Joi.ValidationError): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const detail of error.details) {
    const path = detail.path.map(String);
    const key = path[0] === 'double_opt_in' && path.length > 1 ? path.join('.') : (path[0] ?? 'base');
    const messages = (errors[key] ??= []);
    if (!messages.includes(detail.message)) messages.push(detail.message);
  }
  return errors;
}

const PREFERENCES: Joi.ValidationOptions = { abortEarly: false, convert: true, messages: MESSAGES, errors: { wrap: { label: false } } };
// Preferences given to validate() are compiled (messages included) on every call; set on the
// schema they are compiled once (docs/write-path.md, "Per-request CPU").
const withPreferences = new WeakMap<Joi.Schema, Joi.Schema>();

function validate<T>(schema: Joi.Schema, value: unknown): T {
  let prepared = withPreferences.get(schema);
  if (prepared === undefined) withPreferences.set(schema, (prepared = schema.prefs(PREFERENCES)));
  const result = prepared.validate(value);
  if (result.error) throw ValidationError.forFields(fieldErrors(result.error));
  return result.value as T;
}

/** docs/api-decisions.md: the resource's fields nested under `subscriber`, or flat at the top level. */
function subscriberPart(body: Body): Body {
  return isObject(body.subscriber) ? body.subscriber : body;
}

function refuseTagList(fields: Body): void {
  if ('tag_list' in fields) throw new ValidationError(TAG_LIST_REFUSED);
}

function toFields(v: Body): SubscriberFields {
  const fields: SubscriberFields = {};
  // Names are stored as sent, an empty string included: what is stored comes back exactly.
  if (v.first_name !== undefined) fields.firstName = v.first_name as string | null;
  if (v.last_name !== undefined) fields.lastName = v.last_name as string | null;
  if (v.ip_address !== undefined) fields.ipAddress = v.ip_address === '' ? null : (v.ip_address as string | null);
  if (v.source !== undefined) fields.source = v.source as string;
  if (v.subscribed_at !== undefined) fields.subscribedAt = v.subscribed_at as Date;
  if (v.tags !== undefined) fields.tags = v.tags as string[];
  if (v.custom_data !== undefined) fields.customData = v.custom_data as Record<string, unknown>;
  return fields;
}

export function parseCreateBody(body: unknown): CreateSubscriberInput {
  const root = isObject(body) ? body : {};
  const raw = subscriberPart(root);
  refuseTagList(raw);
  const options = validate<Body>(doubleOptInSchema, {
    double_opt_in: root.double_opt_in,
    confirmation_template_id: root.confirmation_template_id,
  });
  const fields = validate<Body>(createFieldsSchema, raw);
  return {
    email: fields.email as string,
    fields: toFields(fields),
    doubleOptIn: doubleOptIn(options),
    ...(typeof fields.is_active === 'boolean' ? { isActive: fields.is_active } : {}),
    ...(fields.unsubscribed_at instanceof Date ? { unsubscribedAt: fields.unsubscribed_at } : {}),
    ...(fields.confirmed_at instanceof Date ? { confirmedAt: fields.confirmed_at } : {}),
  };
}

/** `double_opt_in: true` or an options object; `false` or absent is a plain create. */
function doubleOptIn(options: Body): DoubleOptInOptions | null {
  const value = options.double_opt_in;
  if (value === undefined || value === false) return null;
  const inner = isObject(value) ? value : {};
  const templateId = (inner.confirmation_template_id ?? options.confirmation_template_id ?? null) as number | null;
  return {
    replyTo: (inner.reply_to as string | null | undefined) ?? null,
    templateId,
    includeUnsubscribeLink: (inner.include_unsubscribe_link as boolean | undefined) ?? true,
  };
}

/**
 * docs/api-decisions.md: the target is the top-level `email` when present, else `subscriber[email]`. With
 * both present and different, the nested one is the subscriber's new address.
 */
export function parseUpdateBody(body: unknown): UpdateSubscriberInput {
  const root = isObject(body) ? body : {};
  const raw = subscriberPart(root);
  refuseTagList(raw);
  const fields = validate<Body>(updateFieldsSchema, raw);
  const topLevel = root !== raw && typeof root.email === 'string' ? root.email : undefined;
  const nested = fields.email as string | undefined;
  const target = topLevel ?? nested;
  if (target === undefined || target.trim() === '') throw ValidationError.forFields({ email: ["can't be blank"] });
  const input: UpdateSubscriberInput = { email: target, fields: toFields(fields) };
  if (root.custom_data_mode !== undefined) {
    if (customDataModeSchema.validate(root.custom_data_mode, { convert: false }).error) throw new ValidationError(CUSTOM_DATA_MODE_INVALID);
    input.fields.customDataMode = root.custom_data_mode as 'replace' | 'merge';
  }
  if (topLevel !== undefined && nested !== undefined && nested.trim().toLowerCase() !== topLevel.trim().toLowerCase()) {
    input.newEmail = nested;
  }
  return input;
}

const byEmail = Joi.string().pattern(/\S/).description('The subscriber, by address (case-insensitive).');
const tagList = tags.min(1);

/** `{email}` of the by-email operations (EmailBody), and the query of find.json. */
export const emailBodySchema = Joi.object({ email: byEmail.required() }).unknown(true);
/** `{email, tags}` of add_tag and remove_tag (TagsBody). */
export const tagsBodySchema = emailBodySchema.keys({ tags: tagList.required() });

/** `{email}` of the by-email operations; DELETE clients may also send it in the query. */
export function parseEmailParam(source: Body): string {
  if (emailBodySchema.validate(source, { convert: false }).error) throw new ValidationError(EMAIL_REQUIRED);
  return source.email as string;
}

/** `{email, tags}`: a single string counts as one tag. */
export function parseTagsBody(source: Body): { email: string; tags: string[] } {
  const email = parseEmailParam(source);
  const raw = typeof source.tags === 'string' ? [source.tags] : source.tags;
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) throw new ValidationError(TAGS_REQUIRED);
  const { value, error } = tagList.validate(raw);
  if (error) throw new ValidationError('tags must be an array of non-blank strings');
  return { email, tags: value as string[] };
}

const page = Joi.number()
  .integer()
  .min(1)
  .max(1_000_000_000)
  .messages({ '*': 'page must be a positive integer' })
  .description('Page number.')
  .meta({ 'x-openapi': { default: 1 } });

/** The history query (docs/subscribers.md, "History"): the address and a page of 100. */
export const historyQuerySchema = Joi.object({ email: byEmail.required(), page }).unknown(true);

/** `{email, page}` of history.json; a missing address is the by-email operations' 422. */
export function parseHistoryQuery(source: Body): { email: string; page: number } {
  const email = parseEmailParam(source);
  const { value, error } = historyQuerySchema.validate(source, { convert: true });
  if (error) throw new ValidationError(error.details[0]?.message ?? 'page must be a positive integer');
  return { email, page: (value as { page?: number }).page ?? 1 };
}

/** The list query (the document's listSubscribers parameters). */
export const listQuerySchema = Joi.object({
  is_active: Joi.string().valid('true', 'false').messages({ '*': 'is_active must be true or false' }).description('Active or not.'),
  source: Joi.string().messages({ '*': 'source must be a string' }).description('Exact source.'),
  email: Joi.string()
    .allow('')
    .messages({ '*': 'email must be a string' })
    .description('Partial, case-insensitive match (a domain part matches every address containing it).'),
  confirmation_status: Joi.string()
    .valid('confirmed', 'unconfirmed')
    .messages({ '*': 'confirmation_status must be confirmed or unconfirmed' })
    .description('Confirmed or not.'),
  // Parsed by parseListQuery itself: an unparsable bound is ignored with a warning, not refused.
  created_after: Joi.any()
    .description('Created on or after (ISO 8601). An unparsable value is ignored with a `parameter_ignored` warning.')
    .meta({ 'x-openapi': { type: 'string', format: 'date-time' } }),
  created_before: Joi.any()
    .description('Created on or before (ISO 8601). An unparsable value is ignored with a `parameter_ignored` warning.')
    .meta({ 'x-openapi': { type: 'string', format: 'date-time' } }),
  // `tags[]=a&tags[]=b` arrives as an array, a lone `tags=a` as a string: the document names the first.
  tags: Joi.alternatives()
    .try(Joi.array().items(Joi.string()), Joi.string())
    .messages({ '*': 'tags must be a list of strings' })
    .description('The subscriber has every listed tag (AND). Repeated: `tags[]=a&tags[]=b`.')
    .meta({
      'x-openapi': { type: 'array', items: { type: 'string' } },
      'x-openapi-parameter': { name: 'tags[]', style: 'form', explode: true },
    }),
  custom_data: Joi.object()
    .pattern(Joi.string(), Joi.string().allow(''))
    .messages({ '*': 'custom_data must be key=value pairs' })
    .description('Containment: `custom_data[key]=value` for each pair; numeric strings are read as numbers, true/false as booleans.')
    .meta({
      'x-openapi': { type: 'object', additionalProperties: { type: 'string' } },
      'x-openapi-parameter': { style: 'deepObject', explode: true },
    }),
  page,
}).unknown(true);

const isoDate = Joi.date().iso();

/** A date bound, or null when it is not an ISO 8601 instant (docs/subscribers.md, List: ignored, with a warning). */
function dateBound(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const { value: date, error } = isoDate.validate(value);
  return error ? null : (date as Date);
}

/**
 * The spec's list query → a filter, a page number and the parameters it ignored (422 `{error}`
 * for a malformed value; an unparsable `created_after`/`created_before` is ignored with a
 * `parameter_ignored` warning instead: docs/subscribers.md, List).
 */
export function parseListQuery(query: unknown): { filter: SubscriberFilter; page: number; ignored: string[] } {
  const { value, error } = listQuerySchema.validate(query ?? {}, { abortEarly: false, convert: true });
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const v = value as Body;
  const filter: SubscriberFilter = {};
  if (v.is_active !== undefined) filter.isActive = v.is_active === 'true';
  if (v.source !== undefined) filter.source = v.source as string;
  if (typeof v.email === 'string' && v.email !== '') filter.emailContains = v.email;
  if (v.confirmation_status !== undefined) filter.confirmationStatus = v.confirmation_status as 'confirmed' | 'unconfirmed';
  const ignored: string[] = [];
  for (const [param, key] of [
    ['created_after', 'createdAfter'],
    ['created_before', 'createdBefore'],
  ] as const) {
    if (v[param] === undefined) continue;
    const date = dateBound(v[param]);
    if (date === null) ignored.push(param);
    else filter[key] = date;
  }
  if (v.tags !== undefined) {
    const list = (Array.isArray(v.tags) ? v.tags : [v.tags]) as string[];
    if (list.length > 0) filter.tags = [...new Set(list)];
  }
  if (v.custom_data !== undefined) {
    const entries = Object.entries(v.custom_data as Record<string, string>);
    if (entries.length > 0) filter.customData = Object.fromEntries(entries.map(([k, s]) => [k, parseCustomDataFilterValue(s)]));
  }
  return { filter, page: (v.page as number | undefined) ?? 1, ignored };
}
