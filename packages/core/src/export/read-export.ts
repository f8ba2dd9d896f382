import {
  EXPORT_COLLECTIONS,
  EXPORT_DAYS,
  EXPORT_FORMAT_VERSION,
  EXPORT_HISTORY_COLLECTIONS,
  historySince,
  isExportHistoryCollection,
  PLATFORM,
  type ExportCollection,
  type ExportHistoryCollection,
} from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { requireAdmin, requirePermission, type Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, ExportReader, Repositories, type ExportRecord } from '../ports';

export const MIGRATION_ADMIN_ONLY = 'Admin API token required for migration';
export const FILE_ASSET_NOT_FOUND = 'File asset not found';

/**
 * Only an admin token with migration_read reads an export (docs/export.md): a channel token is a
 * 403 whatever its permissions, an admin token without the permission the spec's 401.
 */
export function requireMigrationReader(caller: Principal): void {
  requireAdmin(caller, MIGRATION_ADMIN_ONLY);
  requirePermission(caller, 'migration_read');
}

export interface ExportManifest {
  exportFormatVersion: number;
  exportedAt: Date;
  platform: { name: string; version: string };
  channel: { id: number; name: string };
  counts: Record<ExportCollection, number>;
  history: { days: number } & Record<ExportHistoryCollection, number>;
}

/** The manifest: what the export holds, each collection's whole total, and the history window's counts. */
@injectable()
export class ReadExportManifest {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(ExportReader) private readonly reader: ExportReader,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: { days: number | undefined }): Promise<ExportManifest> {
    requireMigrationReader(caller);
    const channel = await this.repositories.channels.findById(caller.channelId);
    if (channel === null) throw new NotFoundError('Channel not found');
    const now = this.clock.now();
    const days = input.days ?? EXPORT_DAYS.default;
    const all = { channelId: caller.channelId, since: null };
    const window = { channelId: caller.channelId, since: historySince(now, days) };
    // One count at a time: an export is a background read and must not take the pool's connections.
    const counts = {} as Record<ExportCollection, number>;
    for (const collection of EXPORT_COLLECTIONS) counts[collection] = await this.reader.count(collection, all);
    const history = { days } as { days: number } & Record<ExportHistoryCollection, number>;
    for (const collection of EXPORT_HISTORY_COLLECTIONS) history[collection] = await this.reader.count(collection, window);
    return {
      exportFormatVersion: EXPORT_FORMAT_VERSION,
      exportedAt: now,
      platform: { name: PLATFORM.name, version: PLATFORM.version },
      channel: { id: channel.id, name: channel.name },
      counts,
      history,
    };
  }
}

export interface ExportPage {
  data: ExportRecord[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** One page of one collection, ordered by id; `days` narrows the history collections to the window. */
@injectable()
export class ReadExportCollection {
  constructor(
    @inject(ExportReader) private readonly reader: ExportReader,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: { collection: ExportCollection; limit: number; offset: number; days: number | undefined }): Promise<ExportPage> {
    requireMigrationReader(caller);
    const since = input.days !== undefined && isExportHistoryCollection(input.collection) ? historySince(this.clock.now(), input.days) : null;
    const scope = { channelId: caller.channelId, since };
    const total = await this.reader.count(input.collection, scope);
    const data = input.offset < total ? await this.reader.page(input.collection, scope, { limit: input.limit, offset: input.offset }) : [];
    return { data, pagination: { total, limit: input.limit, offset: input.offset, hasMore: input.offset + data.length < total } };
  }
}

/** Mailcast keeps no file assets (docs/export.md): every id is unknown, after the same checks as the rest. */
@injectable()
export class DownloadExportFileAsset {
  async execute(caller: Principal): Promise<never> {
    requireMigrationReader(caller);
    throw new NotFoundError(FILE_ASSET_NOT_FOUND);
  }
}
