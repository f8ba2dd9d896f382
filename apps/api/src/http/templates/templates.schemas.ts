import { ValidationError, type PreviewTemplateInput, type TemplateInput } from '@mailcast/core';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/** The HTTP edge of the template routes (docs/templates.md). */

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_SOURCE = 500_000;
const source = Joi.string().max(MAX_SOURCE).allow('', null);

const fields = {
  label: Joi.string().trim().min(1).max(255).description('Required on create.'),
  subject: Joi.string().max(1000).allow('', null),
  preheader: Joi.string().max(1000).allow('', null),
  body: source,
  html_body: source,
  template_purpose: Joi.string()
    .valid('broadcast', 'confirmation')
    .meta({ 'x-openapi': { default: 'broadcast' } }),
  default_confirmation: Joi.boolean().description('Confirmation templates only; makes the previous default an ordinary one.'),
};

/** The fields of an update body, and of a create body but for its required label (TemplateInput). */
export const templateSchema = Joi.object(fields)
  .unknown(true)
  .description('Every Liquid field is checked at save: invalid Liquid is a 422 `{"errors": {field: ["is not valid Liquid: … line:L, col:C"]}}`.');
const createSchema = templateSchema.keys({ label: fields.label.required() });

/** What a template body may carry; anything else is answered with a warning (docs/templates.md). */
export const TEMPLATE_BODY: BodyShape = { key: 'template', fields: keysOf(templateSchema) };

const MESSAGES = {
  'any.required': "can't be blank",
  'string.empty': "can't be blank",
  'string.min': "can't be blank",
  'string.base': 'must be a string',
  'string.max': 'is too long (maximum is {#limit} characters)',
  'boolean.base': 'must be true or false',
  'any.only': 'must be one of {#valids}',
};

function parse(raw: unknown, create: boolean): TemplateInput {
  const root = isObject(raw) ? raw : {};
  const body = isObject(root.template) ? root.template : root;
  const schema = create ? createSchema : templateSchema;
  const { value, error } = schema.validate(body, { abortEarly: false, convert: false, messages: MESSAGES, errors: { wrap: { label: false } } });
  if (error) {
    const errors: Record<string, string[]> = {};
    for (const d of error.details) (errors[String(d.path[0] ?? 'base')] ??= []).push(d.message);
    throw ValidationError.forFields(errors);
  }
  const v = value as Body;
  const input: TemplateInput = {};
  if (v.label !== undefined) input.label = v.label as string;
  if (v.subject !== undefined) input.subject = v.subject as string | null;
  if (v.preheader !== undefined) input.preheader = v.preheader as string | null;
  if (v.body !== undefined) input.body = v.body as string | null;
  if (v.html_body !== undefined) input.htmlBody = v.html_body as string | null;
  if (v.template_purpose !== undefined) input.purpose = v.template_purpose as 'broadcast' | 'confirmation';
  if (v.default_confirmation !== undefined) input.defaultConfirmation = v.default_confirmation as boolean;
  return input;
}

export const createTemplateBody = (raw: unknown) => parse(raw, true);
export const updateTemplateBody = (raw: unknown) => parse(raw, false);

/** The sample subscriber a preview may replace, field by field (docs/templates.md "Preview"). */
const previewSubscriber = Joi.object({
  email: Joi.string().max(254),
  first_name: Joi.string().max(255).allow('', null),
  last_name: Joi.string().max(255).allow('', null),
  tags: Joi.array().items(Joi.string().max(255)).max(100),
  custom_data: Joi.object().unknown(true),
}).description('Replaces the sample subscriber\'s fields that it gives (default: jane.doe@example.com, "Jane" "Doe", tags ["sample"], no custom data).');

/** Unsaved content to preview: the Liquid fields of a template, its purpose and who it is rendered for. */
export const templatePreviewSchema = Joi.object({
  subject: fields.subject,
  preheader: fields.preheader,
  body: fields.body,
  html_body: fields.html_body,
  template_purpose: fields.template_purpose,
  subscriber: previewSubscriber,
})
  .unknown(true)
  .description('Checked as at save (invalid Liquid: the same 422 per field, with line and column), then rendered.');

export const TEMPLATE_PREVIEW_BODY: BodyShape = { key: 'template', fields: keysOf(templatePreviewSchema) };

const PREVIEW_MESSAGES = { ...MESSAGES, 'object.base': 'must be an object', 'array.base': 'must be an array', 'array.max': 'must have at most {#limit} items' };

export function previewTemplateBody(raw: unknown): PreviewTemplateInput {
  const root = isObject(raw) ? raw : {};
  const body = isObject(root.template) ? root.template : root;
  const { value, error } = templatePreviewSchema.validate(body, {
    abortEarly: false,
    convert: false,
    messages: PREVIEW_MESSAGES,
    errors: { wrap: { label: false } },
  });
  if (error) {
    const errors: Record<string, string[]> = {};
    for (const d of error.details) (errors[d.path.map(String).join('.') || 'base'] ??= []).push(d.message);
    throw ValidationError.forFields(errors);
  }
  const v = value as Body;
  const input: PreviewTemplateInput = {};
  if (v.subject !== undefined) input.subject = v.subject as string | null;
  if (v.preheader !== undefined) input.preheader = v.preheader as string | null;
  if (v.body !== undefined) input.body = v.body as string | null;
  if (v.html_body !== undefined) input.htmlBody = v.html_body as string | null;
  if (v.template_purpose !== undefined) input.purpose = v.template_purpose as 'broadcast' | 'confirmation';
  if (isObject(v.subscriber)) {
    const s = v.subscriber;
    input.subscriber = {};
    if (s.email !== undefined) input.subscriber.email = s.email as string;
    if (s.first_name !== undefined) input.subscriber.firstName = s.first_name as string | null;
    if (s.last_name !== undefined) input.subscriber.lastName = s.last_name as string | null;
    if (s.tags !== undefined) input.subscriber.tags = s.tags as string[];
    if (s.custom_data !== undefined) input.subscriber.customData = s.custom_data as Record<string, unknown>;
  }
  return input;
}
