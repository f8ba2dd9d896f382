import {
  AddEmailServer,
  CopyEmailServer,
  CROSS_CHANNEL_ADMIN_ONLY,
  DeleteEmailServer,
  EMAIL_SERVER_NOT_FOUND,
  GenerateDkimKey,
  GetEmailServer,
  ListEmailServers,
  TestEmailServerConnection,
  requireAdmin,
  UpdateEmailServer,
} from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal, principal } from '../auth';
import { presentEmailServer } from './email-server.presenter';
import { copyToChannelBody, dkimKeyBody, EMAIL_SERVER_BODY, emailServerBody, newEmailServerBody } from './email-servers.schemas';
import { idParam, pageParams } from '../params';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Email servers (docs/email-servers.md). Route handlers never catch. */
export function emailServersRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, EMAIL_SERVER_NOT_FOUND);

  router.get('/email_servers', async (req, res) => {
    const caller = principal(res, 'email_servers_read');
    const { items, total } = await container.resolve(ListEmailServers).execute(caller, pageParams(req.query));
    res.json({ data: items.map(presentEmailServer), total });
  });

  router.get('/email_servers/:id', async (req, res) => {
    const caller = principal(res, 'email_servers_read');
    res.json(presentEmailServer(await container.resolve(GetEmailServer).execute(caller, { id: id(req.params.id) })));
  });

  router.post('/email_servers', async (req, res) => {
    const caller = principal(res, 'email_servers_write');
    const server = await container.resolve(AddEmailServer).execute({ ...newEmailServerBody(req.body), channelId: caller.channelId });
    res.status(201).json(withWarnings(presentEmailServer(server), unrecognizedParameters(req.body, EMAIL_SERVER_BODY)));
  });

  router.patch('/email_servers/:id', async (req, res) => {
    const caller = principal(res, 'email_servers_write');
    const serverId = id(req.params.id);
    const server = await container.resolve(UpdateEmailServer).execute(caller, { id: serverId, changes: emailServerBody(req.body) });
    res.json(withWarnings(presentEmailServer(server), unrecognizedParameters(req.body, EMAIL_SERVER_BODY)));
  });

  router.delete('/email_servers/:id', async (req, res) => {
    const caller = principal(res, 'email_servers_write');
    await container.resolve(DeleteEmailServer).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Email server deleted' });
  });

  router.post('/email_servers/:id/test_connection', async (req, res) => {
    const caller = principal(res, 'email_servers_write');
    res.json(await container.resolve(TestEmailServerConnection).execute(caller, { id: id(req.params.id) }));
  });

  router.post('/email_servers/:id/generate_dkim_key', async (req, res) => {
    const caller = principal(res, 'email_servers_write');
    const record = await container.resolve(GenerateDkimKey).execute(caller, { id: id(req.params.id), ...dkimKeyBody(req.body) });
    res.json({ dkim_domain: record.dkimDomain, dkim_selector: record.dkimSelector, dns_record: record.dnsRecord });
  });

  // An admin token's alone, checked before the permission: a channel token gets 403 (docs/email-servers.md, "Copy to another channel").
  router.post('/email_servers/:id/copy_to_channel', async (req, res) => {
    const caller = anyPrincipal(res);
    requireAdmin(caller, CROSS_CHANNEL_ADMIN_ONLY);
    const copy = await container.resolve(CopyEmailServer).execute(caller, { id: id(req.params.id), ...copyToChannelBody(req.body) });
    res.status(201).json(withWarnings(presentEmailServer(copy), unrecognizedParameters(req.body, { key: 'email_server', fields: ['target_channel_id'] })));
  });

  return router;
}
