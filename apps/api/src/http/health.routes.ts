import { DatabaseToken, readiness, type Database } from '@mailcast/adapters';
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
    const checks = await readiness(db);
    const ready = checks.database && checks.migrations;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  return router;
}
