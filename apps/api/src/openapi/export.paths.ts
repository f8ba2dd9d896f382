import { EXPORT_COLLECTIONS, EXPORT_DAYS, EXPORT_HISTORY_COLLECTIONS, EXPORT_PAGE } from '@mailcast/domain';
import { authenticated, type Json, ok, query, RATE_LIMIT_HEADERS } from './operation';
import { ref } from './schemas';

export const EXPORT = 'Export';

const CHANNEL: Json = {
  name: 'broadcast_channel_id',
  in: 'query',
  required: true,
  description: 'The channel to export (admin token). Missing: 422; a channel that does not exist: 404.',
  schema: { type: 'integer', minimum: 1 },
};

const DAYS = (description: string): Json =>
  query(
    'days_history',
    { type: 'integer', minimum: EXPORT_DAYS.min, maximum: EXPORT_DAYS.max },
    `${description} Outside ${EXPORT_DAYS.min}..${EXPORT_DAYS.max}: 422.`,
  );

const ACCESS =
  'An admin (cross-channel) token with `migration_read` only: a channel token gets 403 `{"error": "Admin API token required for migration"}`, an admin token without the permission 401.';

/** The export API (docs/export.md): a manifest, then each collection page by page. */
export const EXPORT_PATHS: Record<string, Json> = {
  '/api/migration/v1/manifest': {
    get: authenticated({
      operationId: 'getExportManifest',
      summary: "What a channel's export holds",
      description: `The format version, platform, channel, each collection's total, and the history collections counted within \`days_history\`. ${ACCESS}`,
      tag: EXPORT,
      permission: 'migration_read',
      parameters: [CHANNEL, DAYS(`The history window in days (default ${EXPORT_DAYS.default}).`)],
      responses: { '200': ok('The manifest.', ref('ExportManifest')) },
      errors: ['403', '404', '422'],
    }),
  },
  '/api/migration/v1/{collection}': {
    get: authenticated({
      operationId: 'listExportCollection',
      summary: 'One page of a collection',
      description: `The channel's rows of the collection, ordered by id (tags by name), each mapped as docs/export.md says; SMTP passwords, DKIM keys and webhook secrets redacted, never a token, hash or password. ${ACCESS}`,
      tag: EXPORT,
      permission: 'migration_read',
      parameters: [
        { name: 'collection', in: 'path', required: true, schema: { type: 'string', enum: [...EXPORT_COLLECTIONS] } },
        CHANNEL,
        query(
          'limit',
          { type: 'integer', minimum: 1 },
          `Page size: default ${EXPORT_PAGE.defaultLimit}, at most ${EXPORT_PAGE.maxLimit} (a larger value is clamped and the applied one answered). Below 1 or not an integer: 422.`,
        ),
        query('offset', { type: 'integer', minimum: 0 }, 'Rows skipped: default 0. Negative or not an integer: 422.'),
        DAYS(`Only for ${EXPORT_HISTORY_COLLECTIONS.join(', ')}: the last so many days (default: the whole history); the other collections ignore it.`),
      ],
      responses: { '200': ok('The page.', ref('ExportPage')) },
      errors: ['403', '404', '422'],
    }),
  },
  '/api/migration/v1/file_assets/{id}/download': {
    get: authenticated({
      operationId: 'downloadExportFileAsset',
      summary: "A file asset's bytes",
      description: `Mailcast keeps no file assets, so every id answers 404 \`{"error": "File asset not found"}\` (docs/export.md). ${ACCESS}`,
      tag: EXPORT,
      permission: 'migration_read',
      parameters: [{ $ref: '#/components/parameters/id' }, CHANNEL],
      responses: {
        '200': {
          description: 'The raw bytes.',
          headers: RATE_LIMIT_HEADERS,
          content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
      },
      errors: ['403', '404', '422'],
    }),
  },
};
