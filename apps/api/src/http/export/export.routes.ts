import { DownloadExportFileAsset, ReadExportCollection, ReadExportManifest, requireMigrationReader, ValidationError } from '@mailcast/core';
import { isExportCollection, parseExportDays, parseExportPage, type ExportParsed } from '@mailcast/domain';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal } from '../auth';

function valueOf<T>(parsed: ExportParsed<T>): T {
  if (!parsed.ok) throw new ValidationError(parsed.error);
  return parsed.value;
}

/**
 * The export API, /api/migration/v1 (docs/export.md): an admin token with migration_read reads
 * one channel's data, named by broadcast_channel_id, a manifest and then each collection page by page.
 */
export function exportRoutes(container: DependencyContainer): Router {
  const router = Router();
  // Who may call comes before any parameter is read: a channel token is a 403 whatever it sends.
  router.use((_req, res, next) => {
    requireMigrationReader(anyPrincipal(res));
    next();
  });

  router.get('/manifest', async (req, res) => {
    const days = valueOf(parseExportDays(req.query.days_history));
    const manifest = await container.resolve(ReadExportManifest).execute(anyPrincipal(res), { days });
    res.json({
      export_format_version: manifest.exportFormatVersion,
      exported_at: manifest.exportedAt.toISOString(),
      platform: manifest.platform,
      broadcast_channel: manifest.channel,
      counts: manifest.counts,
      history: manifest.history,
    });
  });

  router.get('/file_assets/:id/download', async (_req, res) => {
    await container.resolve(DownloadExportFileAsset).execute(anyPrincipal(res));
  });

  router.get('/:collection', async (req, res, next) => {
    const collection = req.params.collection;
    if (typeof collection !== 'string' || !isExportCollection(collection)) return next();
    const { limit, offset } = valueOf(parseExportPage(req.query.limit, req.query.offset));
    const days = valueOf(parseExportDays(req.query.days_history));
    const page = await container.resolve(ReadExportCollection).execute(anyPrincipal(res), { collection, limit, offset, days });
    res.json({
      data: page.data,
      pagination: { total: page.pagination.total, limit: page.pagination.limit, offset: page.pagination.offset, has_more: page.pagination.hasMore },
    });
  });

  return router;
}
