import {
  ValidationError,
  type Page,
  type Transactional,
  type TransactionalEvent,
  type TransactionalFilter,
  type TransactionalInput,
  type TransactionalSummary,
} from '@mailcast/core';
import { IDEMPOTENCY_KEY_MAX, TRANSACTIONAL_STATUSES, type TransactionalStatus } from '@mailcast/domain';
import Joi from 'joi';
import { MAX_PAGE_SIZE, pageSchema } from '../params';
import { keysOf, type BodyShape } from '../warnings';

/** The HTTP edge of transactional email (docs/transactionals.md). */

const text = Joi.string().max(500_000);
const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);

/** The body of a transactional send (the OpenAPI document's TransactionalInput). */
export const transactionalSchema = Joi.object({
  to: Joi.string().max(1000).required().description('The recipient; the subscriber is created on first send.'),
  subject: Joi.string().max(1000),
  body: text.description('Plain text; Liquid.'),
  html_body: text.allow(null).description('Liquid; values are HTML-escaped.'),
  preheader: Joi.string().max(1000).allow(null),
  reply_to: Joi.string().max(1000).allow('', null),
  data: Joi.object().unknown(true).description('In Liquid scope as `data`.'),
  subscriber: Joi.object({
    first_name: Joi.string().max(1000).allow('', null),
    last_name: Joi.string().max(1000).allow('', null),
    custom_data: Joi.object().unknown(true).description('Stored on a new subscriber.'),
  }).unknown(true),
  include_unsubscribe_link: Joi.boolean()
    .description(
      'Adds a visible unsubscribe link to the text and HTML parts (unless the content already places `{{ unsubscribe_url }}`) and the `List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 8058 one-click) headers. The link is the public unsubscribe page `/u/{token}`, for this recipient in this channel. Default false: none of these, as for a password reset.',
    )
    .meta({ 'x-openapi': { default: false } }),
  double_opt_in: Joi.boolean().description(
    'Holds the email (status awaiting_confirmation) and sends the recipient a confirmation email, unless they confirmed before; the email goes out when they confirm.',
  ),
  email_server_id: id.description("One of the channel's email servers; default its first."),
  template_id: id.description('A broadcast template whose fields fill those not given.'),
})
  .unknown(true)
  .description(
    'Flat. `subject` and `body` are required unless `template_id` names a template that has them. Liquid sees `subscriber`, `data` and `unsubscribe_url` (empty unless `include_unsubscribe_link`).',
  );

const MESSAGES = {
  'any.required': "can't be blank",
  'string.empty': "can't be blank",
  'string.base': 'must be a string',
  'string.max': 'is too long (maximum is {#limit} characters)',
  'object.base': 'must be an object',
  'boolean.base': 'must be true or false',
  'number.base': 'must be an integer',
  'number.integer': 'must be an integer',
  'number.min': 'must be a positive integer',
  'number.max': 'must be a positive integer',
};

/** What a transactional body may carry (flat); anything else is answered with a warning (docs/transactionals.md). */
export const TRANSACTIONAL_BODY: BodyShape = { key: 'transactional', fields: keysOf(transactionalSchema) };

export function parseTransactionalBody(raw: unknown): TransactionalInput {
  const body = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {};
  const { value, error } = transactionalSchema.validate(body, { abortEarly: false, convert: false, messages: MESSAGES, errors: { wrap: { label: false } } });
  if (error) {
    const errors: Record<string, string[]> = {};
    for (const d of error.details) (errors[String(d.path[0] ?? 'base')] ??= []).push(d.message);
    throw ValidationError.forFields(errors);
  }
  const v = value as Record<string, unknown> & { to: string; data?: Record<string, unknown>; subscriber?: Record<string, unknown> };
  const s = v.subscriber ?? {};
  const input: TransactionalInput = {
    to: v.to,
    data: v.data ?? {},
    subscriber: {
      firstName: (s.first_name as string | null | undefined) ?? null,
      lastName: (s.last_name as string | null | undefined) ?? null,
      customData: (s.custom_data as Record<string, unknown> | undefined) ?? {},
    },
    includeUnsubscribeLink: v.include_unsubscribe_link === true,
    doubleOptIn: v.double_opt_in === true,
  };
  if (v.subject !== undefined) input.subject = v.subject as string;
  if (v.body !== undefined) input.body = v.body as string;
  if (v.html_body !== undefined) input.htmlBody = v.html_body as string | null;
  if (v.preheader !== undefined) input.preheader = v.preheader as string | null;
  if (v.reply_to !== undefined) input.replyTo = v.reply_to as string | null;
  if (v.email_server_id !== undefined) input.emailServerId = v.email_server_id as number;
  if (v.template_id !== undefined) input.templateId = v.template_id as number;
  return input;
}

/** The header, if sent: at most 255 visible ASCII characters. */
export function parseIdempotencyKey(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length === 0 || raw.length > IDEMPOTENCY_KEY_MAX || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ValidationError(`Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters`);
  }
  return raw;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export const presentCreated = (t: Transactional) => ({ id: t.id, to: t.to, subject: t.subject, status: t.status, created_at: t.createdAt.toISOString() });

/**
 * The log's query (docs/transactionals.md, "The log"): §2's limit and offset, and filters that all
 * apply together. A value that cannot be a filter is a 422, never an unfiltered answer.
 */
export const transactionalListQuery = pageSchema
  .keys({
    status: Joi.string()
      .valid(...TRANSACTIONAL_STATUSES)
      .messages({ '*': `status must be one of ${TRANSACTIONAL_STATUSES.join(', ')}` })
      .description('Only transactionals in this status.'),
    email: Joi.string()
      .allow('')
      .max(1000)
      .messages({ '*': 'email must be a string of at most 1000 characters' })
      .description('Part of the recipient address, any case.'),
    created_after: Joi.date()
      .iso()
      .messages({ '*': 'created_after must be an ISO 8601 date or time' })
      .description('Only those created at or after this instant (ISO 8601).'),
    created_before: Joi.date()
      .iso()
      .messages({ '*': 'created_before must be an ISO 8601 date or time' })
      .description('Only those created at or before this instant (ISO 8601).'),
  })
  .prefs({ abortEarly: true, convert: true });

export function parseTransactionalListQuery(query: unknown): { filter: TransactionalFilter; page: Page } {
  const { value, error } = transactionalListQuery.validate(query ?? {});
  if (error) throw new ValidationError(error.details[0]?.message ?? 'Invalid query');
  const v = value as { limit: number; offset: number; status?: TransactionalStatus; email?: string; created_after?: Date; created_before?: Date };
  const filter: TransactionalFilter = {
    ...(v.status !== undefined ? { status: v.status } : {}),
    ...(v.email !== undefined && v.email !== '' ? { emailContains: v.email } : {}),
    ...(v.created_after !== undefined ? { createdAfter: v.created_after } : {}),
    ...(v.created_before !== undefined ? { createdBefore: v.created_before } : {}),
  };
  return { filter, page: { limit: Math.min(v.limit, MAX_PAGE_SIZE), offset: v.offset } };
}

export const presentTransactionalEvent = (e: TransactionalEvent) => ({ id: e.id, type: e.type, created_at: e.createdAt.toISOString(), data: e.data });

export const presentTransactional = (t: TransactionalSummary) => ({
  id: t.id,
  to: t.to,
  subject: t.subject,
  status: t.status,
  message_id: t.messageId,
  sent_at: iso(t.sentAt),
  created_at: t.createdAt.toISOString(),
  error: t.error,
});
