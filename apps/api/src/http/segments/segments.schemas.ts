import { ValidationError, type SegmentFields } from '@mailcast/core';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of the segment routes. Types of the top-level fields are checked here; whether
 * the rules can be evaluated is the domain's (a 422 naming `rules[i]`).
 */
/** The fields of a create or update body (SegmentInput); match and rules are the domain's to check. */
export const segmentSchema = Joi.object({
  name: Joi.string().allow('').messages({ '*': 'Name must be a string' }),
  description: Joi.string().max(10_000).allow('', null).messages({ '*': 'Description must be a string of at most 10000 characters' }),
  match: Joi.any().meta({ 'x-openapi': { type: 'string', enum: ['all', 'any'], default: 'all' } }),
  rules: Joi.any()
    .description('At most 100.')
    .meta({ 'x-openapi': { type: 'array', items: { $ref: '#/components/schemas/SegmentRule' } } }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

/** What a create or update body may carry; anything else is answered with a warning. */
export const SEGMENT_BODY: BodyShape = { key: 'segment', fields: keysOf(segmentSchema) };

/** The body under `segment` as the other resources nest theirs, or flat. */
function unwrap(body: unknown): Record<string, unknown> {
  const top = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const nested = top.segment;
  return typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : top;
}

export function segmentBody(body: unknown): SegmentFields {
  const { value, error } = segmentSchema.validate(unwrap(body));
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const v = value as Record<string, unknown>;
  return {
    ...(v.name !== undefined ? { name: v.name as string } : {}),
    ...(v.description !== undefined ? { description: (v.description as string | null) || null } : {}),
    ...(v.match !== undefined ? { match: v.match } : {}),
    ...(v.rules !== undefined ? { rules: v.rules } : {}),
  };
}

/** The query of a segment read (its page of members). */
export const pageQuerySchema = Joi.object({
  page: Joi.number()
    .integer()
    .min(1)
    .max(1_000_000_000)
    .messages({ '*': 'page must be a positive integer' })
    .description('Page of members, from 1 (250 a page).')
    .meta({ 'x-openapi': { default: 1 } }),
}).unknown(true);

export function segmentPage(query: unknown): number {
  const { value, error } = pageQuerySchema.validate(query ?? {}, { convert: true });
  if (error) throw new ValidationError(error.details[0]!.message);
  return (value as { page?: number }).page ?? 1;
}
