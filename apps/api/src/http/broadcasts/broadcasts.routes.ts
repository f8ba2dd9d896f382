import {
  AbortBroadcast,
  BROADCAST_NOT_FOUND,
  CancelSchedule,
  CreateBroadcast,
  DeleteBroadcast,
  GetBroadcast,
  ListBroadcasts,
  PauseBroadcast,
  PreviewBroadcast,
  ResumeBroadcast,
  ScheduleBroadcast,
  SendBroadcast,
  UpdateBroadcast,
} from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { presentBroadcast } from './broadcast.presenter';
import { BROADCAST_BODY, broadcastInput, scheduleInput } from './broadcasts.schemas';
import { idParam, pageParams } from '../params';
import { parseEmailParam } from '../subscribers/subscribers.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Spec: Broadcasts. Route handlers never catch: errors travel to the error handler. */
export function broadcastsRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, BROADCAST_NOT_FOUND);

  router.get('/broadcasts', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const { items, total } = await container.resolve(ListBroadcasts).execute(caller, pageParams(req.query));
    res.json({ data: items.map(presentBroadcast), total });
  });

  router.get('/broadcasts/:id', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    const broadcast = await container.resolve(GetBroadcast).execute(caller, { id: id(req.params.id) });
    res.json(presentBroadcast(broadcast));
  });

  router.post('/broadcasts', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    const created = await container.resolve(CreateBroadcast).execute(caller, broadcastInput(req.body));
    res.status(201).json(withWarnings({ id: created.id }, unrecognizedParameters(req.body, BROADCAST_BODY)));
  });

  router.patch('/broadcasts/:id', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    const target = id(req.params.id);
    const updated = await container.resolve(UpdateBroadcast).execute(caller, { id: target, changes: broadcastInput(req.body) });
    res.json(withWarnings(presentBroadcast(updated), unrecognizedParameters(req.body, BROADCAST_BODY)));
  });

  router.delete('/broadcasts/:id', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    res.json(await container.resolve(DeleteBroadcast).execute(caller, { id: id(req.params.id) }));
  });

  router.post('/broadcasts/:id/send_broadcast', async (req, res) => {
    const caller = principal(res, 'broadcasts_write', 'broadcasts_send');
    res.json(await container.resolve(SendBroadcast).execute(caller, { id: id(req.params.id) }));
  });

  router.post('/broadcasts/:id/schedule_broadcast', async (req, res) => {
    const caller = principal(res, 'broadcasts_write', 'broadcasts_send');
    const target = id(req.params.id);
    res.json(await container.resolve(ScheduleBroadcast).execute(caller, { id: target, ...scheduleInput(req.body) }));
  });

  // The email as one subscriber would receive it, untracked (docs/dashboard.md, "Preview").
  router.post('/broadcasts/:id/preview', async (req, res) => {
    const caller = principal(res, 'broadcasts_read');
    principal(res, 'subscribers_read');
    const target = id(req.params.id);
    const email = parseEmailParam((req.body ?? {}) as Record<string, unknown>);
    const preview = await container.resolve(PreviewBroadcast).execute(caller, { id: target, email });
    res.json({
      subscriber_email: preview.subscriberEmail,
      subject: preview.subject,
      preheader: preview.preheader,
      text: preview.text,
      html: preview.html,
    });
  });

  router.post('/broadcasts/:id/cancel_schedule', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    res.json(await container.resolve(CancelSchedule).execute(caller, { id: id(req.params.id) }));
  });

  // docs/broadcasts-and-sending.md: pause, resume and abort, beyond the spec.
  router.post('/broadcasts/:id/pause_broadcast', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    res.json(await container.resolve(PauseBroadcast).execute(caller, { id: id(req.params.id) }));
  });

  router.post('/broadcasts/:id/resume_broadcast', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    res.json(await container.resolve(ResumeBroadcast).execute(caller, { id: id(req.params.id) }));
  });

  router.post('/broadcasts/:id/abort_broadcast', async (req, res) => {
    const caller = principal(res, 'broadcasts_write');
    res.json(await container.resolve(AbortBroadcast).execute(caller, { id: id(req.params.id) }));
  });

  return router;
}
