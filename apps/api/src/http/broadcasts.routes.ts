import { BROADCAST_NOT_FOUND, GetBroadcast, ListBroadcasts } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from './auth';
import { presentBroadcast } from './broadcast.presenter';
import { idParam, pageParams } from './params';

/** Spec: Broadcasts. Route handlers never catch: errors travel to the error handler. */
export function broadcastsRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/broadcasts', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const { items, total } = await container.resolve(ListBroadcasts).execute(caller, pageParams(req.query));
    res.json({ data: items.map(presentBroadcast), total });
  });

  router.get('/broadcasts/:id', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const broadcast = await container
      .resolve(GetBroadcast)
      .execute(caller, { id: idParam(req.params.id, BROADCAST_NOT_FOUND) });
    res.json(presentBroadcast(broadcast));
  });

  return router;
}
