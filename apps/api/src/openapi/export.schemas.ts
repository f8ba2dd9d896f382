import { EXPORT_COLLECTIONS, EXPORT_FORMAT_VERSION, EXPORT_HISTORY_COLLECTIONS, EXPORT_PAGE, PLATFORM } from '@mailcast/domain';
import { arrayOf, boolean, closed, dateTime, freeObject, integer, string, type Schema } from './schema-helpers';

const counts = (names: readonly string[], description: string): Record<string, Schema> =>
  Object.fromEntries(names.map((name) => [name, integer(description.replace('%s', name))]));

/** The export API's answers (docs/export.md). Spread into SCHEMAS by schemas.ts. */
export const EXPORT_SCHEMAS: Record<string, Schema> = {
  ExportManifest: closed(
    {
      export_format_version: { const: EXPORT_FORMAT_VERSION, description: 'The version of this format.' },
      exported_at: dateTime('When the manifest was read.'),
      platform: closed({ name: { const: PLATFORM.name }, version: string('The release (package.json).') }),
      broadcast_channel: closed({ id: integer(), name: string() }, 'The exported channel, named by `broadcast_channel_id`.'),
      counts: closed(counts(EXPORT_COLLECTIONS, 'The total of `GET /api/migration/v1/%s` (whole history).'), 'Each collection’s total.'),
      history: closed(
        { days: integer('The window, `days_history`.'), ...counts(EXPORT_HISTORY_COLLECTIONS, 'The total of `GET /api/migration/v1/%s?days_history=<days>`.') },
        'The history collections counted within the last `days` days.',
      ),
    },
    'What the export holds (docs/export.md).',
  ),
  ExportPage: closed(
    {
      data: arrayOf(
        freeObject('One row, in the shape docs/export.md gives for the collection: secrets redacted, never a password, token or hash.'),
        'The page, ordered by id (tags: by name).',
      ),
      pagination: closed({
        total: integer('Rows in the whole collection (within `days_history` when given).'),
        limit: { type: 'integer', minimum: 1, maximum: EXPORT_PAGE.maxLimit, description: 'The page size applied (a larger value asked is clamped).' },
        offset: { type: 'integer', minimum: 0 },
        has_more: boolean('Rows follow this page.'),
      }),
    },
    'One page of a collection.',
  ),
};
