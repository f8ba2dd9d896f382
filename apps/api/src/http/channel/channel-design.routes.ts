import { GetChannelDesign } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal } from '../auth';

/** The token's channel's brand kit, read-only (docs/brand-kit.md); set by the admin CLI. */
export function channelDesignRoutes(container: DependencyContainer): Router {
  const router = Router();
  router.get('/channel/design', async (_req, res) => {
    res.json(await container.resolve(GetChannelDesign).execute(anyPrincipal(res)));
  });
  return router;
}
