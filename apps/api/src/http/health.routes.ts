import { DatabaseToken, migrationsAreCurrent, type Database } from '@mailcast/adapters';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';

/** Liveness says the process answers; readiness says it can serve: database up, schema current. */
export function healthRoutes(container: DependencyContainer): Router {
  const router = Router();
  const db = container.resolve<Database>(DatabaseToken);

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const checks = { database: false, migrations: false };
    try {
      await db.raw('SELECT 1');
      checks.database = true;
      checks.migrations = await migrationsAreCurrent(db);
    } catch {
      // reported as not ready below; the cause is in the database's own logs
    }
    const ready = checks.database && checks.migrations;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  return router;
}
