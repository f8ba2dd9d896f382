import { ValidationError, type CreateWebhookEndpointInput, type UpdateWebhookEndpointInput } from '@mailcast/core';
import Joi from 'joi';
import { keysOf, type BodyShape } from './warnings';

/**
 * Request shapes of the webhook endpoint routes. Type errors are reported here, one message per
 * field in the spec's field order, joined with ", " into one `{error}` like the spec's blank
 * fields; what a value means (known event types, allowed destinations) is the use case's.
 */
const fields = Joi.object({
  url: Joi.string().allow('', null).messages({ '*': 'Url must be a string' }),
  description: Joi.string().allow('', null).messages({ '*': 'Description must be a string' }),
  event_types: Joi.array().items(Joi.string()).allow(null).messages({ '*': 'Event types must be an array of strings' }),
  retries_to_attempt: Joi.number().integer().min(0).max(20).messages({ '*': 'Retries to attempt must be an integer from 0 to 20' }),
  active: Joi.boolean().messages({ '*': 'Active must be true or false' }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

/** What a create or update body may carry; anything else is answered with a warning. */
export const WEBHOOK_ENDPOINT_BODY: BodyShape = { key: 'webhook_endpoint', fields: keysOf(fields) };

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
  const { value, error } = fields.validate(unwrap(body));
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

const testSchema = Joi.object({
  event_type: Joi.string().messages({ '*': 'Event type must be a string' }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

export function testEndpointBody(body: unknown): { eventType?: string } {
  const { value, error } = testSchema.validate(unwrap(body));
  if (error) throw new ValidationError(error.details[0]!.message);
  const eventType = (value as { event_type?: string }).event_type;
  return eventType !== undefined ? { eventType } : {};
}
