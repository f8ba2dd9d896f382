import { NotFoundError, ValidationError } from '@mailcast/core';
import Joi from 'joi';

/**
 * A path id that is not a positive integer cannot name a resource: it is a 404 with the
 * resource's own message, not a 422 or a 500 (ids beyond 2^53 included).
 */
export function idParam(raw: string | string[] | undefined, notFoundMessage: string): number {
  const value = typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value)) throw new NotFoundError(notFoundMessage);
  return value;
}

export const MAX_PAGE_SIZE = 100;

/** limit and offset of the lists (the document's `limit` and `offset` parameters). */
export const pageSchema = Joi.object({
  limit: Joi.number()
    .integer()
    .min(0)
    .default(25)
    .description(`Page size: default 25, at most ${MAX_PAGE_SIZE} (a larger value is clamped). A non-integer or negative value is a 422.`),
  offset: Joi.number().integer().min(0).default(0).description('Items skipped: default 0. A non-integer or negative value is a 422.'),
})
  .unknown(true)
  .messages({
    'number.base': '{#label} must be a non-negative integer',
    'number.integer': '{#label} must be a non-negative integer',
    'number.min': '{#label} must be a non-negative integer',
  })
  .prefs({ errors: { wrap: { label: false } } });

/** docs/api-decisions.md: limit default 25, clamped to 100; offset default 0; anything else a 422. */
export function pageParams(query: unknown): { limit: number; offset: number } {
  const { value, error } = pageSchema.validate(query);
  if (error) throw new ValidationError(error.details[0]?.message ?? 'Invalid pagination');
  return { limit: Math.min(value.limit as number, MAX_PAGE_SIZE), offset: value.offset as number };
}
