import type { Permission } from '@mailcast/domain';
import { listQuerySchema, suppressionEmailSchema } from '../http/suppressions/suppressions.schemas';
import { authenticated, type Json, ok } from './operation';
import { queryParameters } from './schema-helpers';
import { ref } from './schemas';

export const SUPPRESSIONS = 'Suppressions';

/**
 * The channel's list and the installation-wide one share their shapes (docs/suppressions.md);
 * the installation-wide one answers 403 to every channel token.
 */
function listPaths(prefix: string, idPart: string, scope: string, write: Permission, adminOnly = false): Record<string, Json> {
  const tag = SUPPRESSIONS;
  const errors = (...more: Array<'404' | '422'>): Array<'403' | '404' | '422'> => (adminOnly ? ['403', ...more] : more);
  return {
    [`/api/v1/${prefix}.json`]: {
      get: authenticated({
        operationId: `list${idPart}`,
        summary: `List the ${scope} suppression list`,
        description: 'Newest first, 250 per page.',
        tag,
        permission: 'suppressions_read',
        parameters: queryParameters(listQuerySchema),
        responses: { '200': ok('A page of the list.', ref('SuppressionList')) },
        errors: errors('422'),
      }),
      post: authenticated({
        operationId: `add${idPart}`,
        summary: `Add an address to the ${scope} suppression list`,
        description: 'Reason `manual`. 201 when added, 200 with the existing entry when it was already there. A malformed address: 422.',
        tag,
        permission: write,
        body: { schema: ref('SuppressionEmailBody') },
        responses: { '201': ok('Added.', ref('Suppression')), '200': ok('Already on the list.', ref('Suppression')) },
        errors: errors('422'),
      }),
      delete: authenticated({
        operationId: `remove${idPart}`,
        summary: `Remove an address from the ${scope} suppression list`,
        description: 'The address may also be given as the `email` query parameter.',
        tag,
        permission: write,
        body: { schema: ref('SuppressionEmailBody'), required: false },
        responses: { '200': ok('Whether it was on the list.', ref('SuppressionRemoved')) },
        errors: errors('422'),
      }),
    },
    [`/api/v1/${prefix}/bulk.json`]: {
      post: authenticated({
        operationId: `add${idPart}InBulk`,
        summary: `Add up to 10,000 addresses to the ${scope} suppression list`,
        description:
          'More than 10,000 entries: 422 and nothing is written. Malformed entries are counted in `invalid` and listed in `invalid_emails`, the others added.',
        tag,
        permission: write,
        body: { schema: ref('SuppressionEmailsBody') },
        responses: { '200': ok('Counts.', ref('SuppressionBulkAdded')) },
        errors: errors('422'),
      }),
      delete: authenticated({
        operationId: `remove${idPart}InBulk`,
        summary: `Remove up to 10,000 addresses from the ${scope} suppression list`,
        tag,
        permission: write,
        body: { schema: ref('SuppressionEmailsBody') },
        responses: { '200': ok('Counts.', ref('SuppressionBulkRemoved')) },
        errors: errors('422'),
      }),
    },
  };
}

export const SUPPRESSION_PATHS: Record<string, Json> = {
  ...listPaths('suppressions', 'Suppressions', 'channel', 'suppressions_write'),
  ...listPaths('global_suppressions', 'GlobalSuppressions', 'installation-wide', 'global_suppressions_write', true),
  '/api/v1/suppressions/check.json': {
    get: authenticated({
      operationId: 'checkSuppression',
      summary: 'Whether email from this channel to an address is suppressed',
      description: "Reads the channel's list, then the installation-wide one.",
      tag: SUPPRESSIONS,
      permission: 'suppressions_read',
      parameters: queryParameters(suppressionEmailSchema),
      responses: { '200': ok('The answer.', ref('SuppressionCheck')) },
      errors: ['422'],
    }),
  },
};
