import type { ExportCollection } from '@mailcast/domain';

/** One row of an export collection, already in the export's JSON shape (docs/export.md). */
export type ExportRecord = Record<string, unknown>;

/** What a collection is read over: its channel and, for the history collections, the window's start. */
export interface ExportScope {
  channelId: number;
  /** null: the whole history. Only the history collections (EXPORT_HISTORY_COLLECTIONS) look at it. */
  since: Date | null;
}

/**
 * Reads a channel's data for the export API (docs/export.md). Each call is one bounded query
 * ordered by id; secrets leave the store redacted and are never opened.
 */
export interface ExportReader {
  page(collection: ExportCollection, scope: ExportScope, page: { limit: number; offset: number }): Promise<ExportRecord[]>;
  count(collection: ExportCollection, scope: ExportScope): Promise<number>;
}
export const ExportReader = Symbol.for('mailcast.ExportReader');
