import { ValidationError } from '@mailcast/core';
import { SUPPRESSION_BULK_LIMIT } from '@mailcast/domain';
import Joi from 'joi';

/** The HTTP edge of the suppression routes: shapes in, typed input out (docs/suppressions.md). */

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Bodies flat, or nested under the resource key (`suppression` or `global_suppression`). */
function fieldsOf(body: unknown): Body {
  const root = isObject(body) ? body : {};
  for (const key of ['suppression', 'global_suppression']) {
    const nested = root[key];
    if (isObject(nested)) return nested;
  }
  return root;
}

const NON_EMPTY = 'must be a non-empty array of addresses';

/** The body of a single add or remove, its fields flat or nested (SuppressionEmailBody), and the query of check.json. */
export const suppressionEmailSchema = Joi.object({
  email: Joi.string().pattern(/\S/).max(1000).required().messages({ 'string.max': 'is invalid', '*': "can't be blank" }).description('The address.'),
}).unknown(true);

/** The body of a bulk add or remove (SuppressionEmailsBody). The count is the use case's bound. */
export const suppressionEmailsSchema = Joi.object({
  emails: Joi.array()
    .items(Joi.string().allow('').max(1000))
    .min(1)
    .required()
    .messages({ 'any.required': NON_EMPTY, 'array.base': NON_EMPTY, 'array.min': NON_EMPTY, '*': 'must be an array of strings' })
    .description(`At most ${SUPPRESSION_BULK_LIMIT.toLocaleString('en')}.`),
}).unknown(true);

function check(schema: Joi.ObjectSchema, fields: Body): void {
  const { error } = schema.validate(fields, { convert: false, errors: { wrap: { label: false } } });
  if (error) throw ValidationError.forFields({ [String(error.details[0]!.path[0])]: [error.details[0]!.message] });
}

export function parseSuppressionEmail(body: unknown): string {
  const fields = fieldsOf(body);
  check(suppressionEmailSchema, fields);
  return fields.email as string;
}

export function parseSuppressionEmails(body: unknown): string[] {
  const fields = fieldsOf(body);
  check(suppressionEmailsSchema, fields);
  return fields.emails as string[];
}

/** The list query (the document's list parameters of both lists). */
export const listQuerySchema = Joi.object({
  email: Joi.string().allow('').max(1000).messages({ '*': 'email must be a string' }).description('Partial, case-insensitive match.'),
  page: Joi.number()
    .integer()
    .min(1)
    .max(1_000_000_000)
    .messages({ '*': 'page must be a positive integer' })
    .description('Page number.')
    .meta({ 'x-openapi': { default: 1 } }),
}).unknown(true);

export function parseSuppressionListQuery(query: unknown): { emailContains?: string; page: number } {
  const { value, error } = listQuerySchema.validate(query ?? {}, { abortEarly: false, convert: true });
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const v = value as Body;
  const page = (v.page as number | undefined) ?? 1;
  return typeof v.email === 'string' && v.email !== '' ? { emailContains: v.email, page } : { page };
}
