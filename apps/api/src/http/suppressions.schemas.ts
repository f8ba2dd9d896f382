import { ValidationError } from '@mailcast/core';
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

export function parseSuppressionEmail(body: unknown): string {
  const email = fieldsOf(body).email;
  if (typeof email !== 'string' || email.trim() === '') throw ValidationError.forFields({ email: ["can't be blank"] });
  if (email.length > 1000) throw ValidationError.forFields({ email: ['is invalid'] });
  return email;
}

export function parseSuppressionEmails(body: unknown): string[] {
  const emails = fieldsOf(body).emails;
  if (!Array.isArray(emails) || emails.length === 0) throw ValidationError.forFields({ emails: ['must be a non-empty array of addresses'] });
  if (!emails.every((e): e is string => typeof e === 'string' && e.length <= 1000)) {
    throw ValidationError.forFields({ emails: ['must be an array of strings'] });
  }
  return emails;
}

const listSchema = Joi.object({
  email: Joi.string().allow('').max(1000).messages({ '*': 'email must be a string' }),
  page: Joi.number().integer().min(1).max(1_000_000_000).messages({ '*': 'page must be a positive integer' }),
}).unknown(true);

export function parseSuppressionListQuery(query: unknown): { emailContains?: string; page: number } {
  const { value, error } = listSchema.validate(query ?? {}, { abortEarly: false, convert: true });
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const v = value as Body;
  const page = (v.page as number | undefined) ?? 1;
  return typeof v.email === 'string' && v.email !== '' ? { emailContains: v.email, page } : { page };
}
