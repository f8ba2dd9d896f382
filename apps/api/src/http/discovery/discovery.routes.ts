import { DescribeCaller, GetChannelStatus } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal as caller } from '../auth';

/** Discovery (docs/discovery.md): any valid token may ask who it is and whether it can send. */
export function discoveryRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/whoami', async (_req, res) => {
    const { tokenType, token, channel } = await container.resolve(DescribeCaller).execute(caller(res));
    res.json({ type: 'api_token', token_type: tokenType, token, channel });
  });

  router.get('/status', async (_req, res) => {
    const status = await container.resolve(GetChannelStatus).execute(caller(res));
    res.json({ status: 'ok', channel: status.channel, email_servers: status.emailServers, ready: status.ready });
  });

  return router;
}
