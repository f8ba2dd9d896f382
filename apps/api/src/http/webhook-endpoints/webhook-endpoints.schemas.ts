import { ValidationError, type CreateWebhookEndpointInput, type UpdateWebhookEndpointInput } from '@mailcast/core';
import { DEFAULT_RETRIES_TO_ATTEMPT, MAX_RETRIES_TO_ATTEMPT } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of the webhook endpoint routes. Type errors are reported here, one message per
 * field in the spec's field order, joined with ", " into one `{error}` like the spec's blank
 * fields; what a value means (known event types, allowed destinations) is the use case's.
 */
const EVENT_TYPE = { $ref: '#/components/schemas/EventType' };

/**
 * The fields of a create or update body (WebhookEndpointCreateInput and UpdateInput). A null url
 * or event_types passes here and is the use case's "can't be blank": the document leaves null out.
 */
export const endpointSchema = Joi.object({
  url: Joi.string()
    .allow('', null)
    .messages({ '*': 'Url must be a string' })
    .description('HTTPS URL receiving the payloads; loopback, private and metadata addresses are refused.')
    .meta({ 'x-openapi': { type: 'string', format: 'uri' } }),
  description: Joi.string().allow('', null).messages({ '*': 'Description must be a string' }),
  event_types: Joi.array()
    .items(Joi.string())
    .allow(null)
    .messages({ '*': 'Event types must be an array of strings' })
    .description('Subscribed event types.')
    .meta({ 'x-openapi': { type: 'array', items: EVENT_TYPE } }),
  retries_to_attempt: Joi.number()
    .integer()
    .min(0)
    .max(MAX_RETRIES_TO_ATTEMPT)
    .messages({ '*': `Retries to attempt must be an integer from 0 to ${MAX_RETRIES_TO_ATTEMPT}` })
    .meta({ 'x-openapi': { default: DEFAULT_RETRIES_TO_ATTEMPT } }),
  active: Joi.boolean()
    .messages({ '*': 'Active must be true or false' })
    .meta({ 'x-openapi': { default: true } }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

/** What a create or update body may carry; anything else is answered with a warning. */
export const WEBHOOK_ENDPOINT_BODY: BodyShape = { key: 'webhook_endpoint', fields: keysOf(endpointSchema) };

/** docs/api-decisions.md: the body under `webhook_endpoint` as the spec shows, or flat. */
function unwrap(body: unknown): Record<string, unknown> {
  const top = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const nested = top.webhook_endpoint;
  return typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : top;
}

interface EndpointFields {
  url?: string | null;
  description?: string | null;
  event_types?: string[] | null;
  retries_to_attempt?: number;
  active?: boolean;
}

function validated(body: unknown): EndpointFields {
  const { value, error } = endpointSchema.validate(unwrap(body));
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  return value as EndpointFields;
}

export function createEndpointBody(body: unknown): CreateWebhookEndpointInput {
  const v = validated(body);
  return {
    ...(typeof v.url === 'string' ? { url: v.url } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
    ...(Array.isArray(v.event_types) ? { eventTypes: v.event_types } : {}),
    ...(v.retries_to_attempt !== undefined ? { retriesToAttempt: v.retries_to_attempt } : {}),
    ...(v.active !== undefined ? { active: v.active } : {}),
  };
}

/** Changed fields only: an explicit null url or event_types is "can't be blank", as on create. */
export function updateEndpointBody(id: number, body: unknown): UpdateWebhookEndpointInput {
  const v = validated(body);
  return {
    id,
    ...(v.url !== undefined ? { url: v.url ?? '' } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
    ...(v.event_types !== undefined ? { eventTypes: v.event_types ?? [] } : {}),
    ...(v.retries_to_attempt !== undefined ? { retriesToAttempt: v.retries_to_attempt } : {}),
    ...(v.active !== undefined ? { active: v.active } : {}),
  };
}

/** The body of the test call (WebhookTestBody). */
export const testSchema = Joi.object({
  event_type: Joi.string()
    .messages({ '*': 'Event type must be a string' })
    .description('`test.webhook`, or a type the endpoint subscribes to (else 422).')
    .meta({ 'x-openapi': { ...EVENT_TYPE, default: 'test.webhook' } }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

export function testEndpointBody(body: unknown): { eventType?: string } {
  const { value, error } = testSchema.validate(unwrap(body));
  if (error) throw new ValidationError(error.details[0]!.message);
  const eventType = (value as { event_type?: string }).event_type;
  return eventType !== undefined ? { eventType } : {};
}
