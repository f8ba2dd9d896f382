import { CreateTransactional, GetTransactional, ListTransactionalEvents, ListTransactionals, TRANSACTIONAL_NOT_FOUND } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam } from '../params';
import {
  parseIdempotencyKey,
  parseTransactionalBody,
  parseTransactionalListQuery,
  presentCreated,
  presentTransactional,
  presentTransactionalEvent,
  TRANSACTIONAL_BODY,
} from './transactionals.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Transactional email (docs/transactionals.md). Route handlers never catch. */
export function transactionalsRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.post('/transactionals.json', async (req, res) => {
    const caller = principal(res, 'transactionals_write');
    const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'));
    const warnings = unrecognizedParameters(req.body, TRANSACTIONAL_BODY);
    const result = await container.resolve(CreateTransactional).execute(caller, {
      input: parseTransactionalBody(req.body),
      rawBody: req.body,
      // The warnings are part of the stored answer, so a replay answers them too.
      answer: (t) => withWarnings(presentCreated(t), warnings),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
    // Replays carry Idempotency-Replayed, as the reference clients read it; the earlier Idempotent-Replayed stays for clients that read it (docs/transactionals.md).
    if (result.replayed) res.set({ 'Idempotency-Replayed': 'true', 'Idempotent-Replayed': 'true' });
    res.status(result.status).json(result.body);
  });

  router.get('/transactionals.json', async (req, res) => {
    const caller = principal(res, 'transactionals_read');
    const { items, total } = await container.resolve(ListTransactionals).execute(caller, parseTransactionalListQuery(req.query));
    res.json({ data: items.map(presentTransactional), total });
  });

  router.get('/transactionals/:id/events.json', async (req, res) => {
    const caller = principal(res, 'transactionals_read');
    const events = await container.resolve(ListTransactionalEvents).execute(caller, { id: idParam(req.params.id, TRANSACTIONAL_NOT_FOUND) });
    res.json({ data: events.map(presentTransactionalEvent) });
  });

  router.get('/transactionals/:id.json', async (req, res) => {
    const caller = principal(res, 'transactionals_read');
    const found = await container.resolve(GetTransactional).execute(caller, { id: idParam(req.params.id, TRANSACTIONAL_NOT_FOUND) });
    res.json(presentTransactional(found));
  });

  return router;
}
