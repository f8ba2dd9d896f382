import { SUPPRESSION_REASONS } from '@mailcast/domain';
import type Joi from 'joi';
import { suppressionEmailSchema, suppressionEmailsSchema } from '../http/suppressions/suppressions.schemas';
import { arrayOf, boolean, closed, dateTime, integer, ref, requestSchema, string, type Schema, warned } from './schema-helpers';

/** The fields flat, or the same fields under `suppression` (the global list's routes also take `global_suppression`). */
function flatOrNested(joi: Joi.ObjectSchema): Schema {
  const fields = (requestSchema(joi).properties ?? {}) as Record<string, Schema>;
  return {
    type: 'object',
    description: 'Flat, or nested under `suppression` (or `global_suppression`).',
    properties: { ...fields, suppression: { type: 'object', properties: fields } },
  };
}

/** The channel and global suppression lists. Spread into SCHEMAS by schemas.ts. */
export const SUPPRESSION_SCHEMAS: Record<string, Schema> = {
  Suppression: warned(
    closed({
      email: string('Normalised (trimmed, lower-cased).'),
      reason: { type: 'string', enum: [...SUPPRESSION_REASONS] },
      created_at: dateTime(),
    }),
  ),
  SuppressionList: closed({ suppressions: arrayOf(ref('Suppression')), pagination: ref('Pagination') }),
  SuppressionEmailBody: flatOrNested(suppressionEmailSchema),
  SuppressionEmailsBody: flatOrNested(suppressionEmailsSchema),
  SuppressionRemoved: closed({ removed: boolean() }),
  SuppressionBulkAdded: closed({
    added: integer('New on the list.'),
    already_suppressed: integer('Already there (duplicates in the request count once).'),
    invalid: integer('How many entries were refused as not addresses.'),
    invalid_emails: arrayOf(string(), 'The refused entries, as sent.'),
  }),
  SuppressionBulkRemoved: closed({
    removed: integer(),
    not_found: integer('Not on the list, or not an address.'),
    invalid: integer('How many of the entries were not addresses (they count in not_found too).'),
    invalid_emails: arrayOf(string(), 'Those entries, as sent.'),
  }),
  SuppressionCheck: closed({
    email: string(),
    suppressed: boolean(),
    scope: { type: ['string', 'null'], enum: ['channel', 'global', null] },
    reason: { type: ['string', 'null'], enum: [...SUPPRESSION_REASONS, null] },
  }),
};
