import {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  GetWebhookEndpoint,
  ListWebhookDeliveries,
  ListWebhookEndpoints,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint,
  WEBHOOK_ENDPOINT_NOT_FOUND,
} from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { principal } from '../auth';
import { idParam, pageParams } from '../params';
import { presentWebhookDelivery, presentWebhookEndpoint } from './webhook-endpoint.presenter';
import { createEndpointBody, testEndpointBody, updateEndpointBody, WEBHOOK_ENDPOINT_BODY } from './webhook-endpoints.schemas';
import { unrecognizedParameters, withWarnings } from '../warnings';

/** Spec: Webhook endpoints. Route handlers never catch: errors travel to the error handler. */
export function webhookEndpointsRoutes(container: DependencyContainer): Router {
  const router = Router();
  const id = (raw: string | string[] | undefined) => idParam(raw, WEBHOOK_ENDPOINT_NOT_FOUND);

  router.get('/webhook_endpoints', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_read');
    const { items, total } = await container.resolve(ListWebhookEndpoints).execute(caller, pageParams(req.query));
    res.json({ data: items.map((e) => presentWebhookEndpoint(e)), total });
  });

  router.get('/webhook_endpoints/:id', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_read');
    const endpoint = await container.resolve(GetWebhookEndpoint).execute(caller, { id: id(req.params.id) });
    res.json(presentWebhookEndpoint(endpoint));
  });

  router.post('/webhook_endpoints', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_write');
    const endpoint = await container.resolve(CreateWebhookEndpoint).execute(caller, createEndpointBody(req.body));
    res.status(201).json(withWarnings(presentWebhookEndpoint(endpoint, 'full'), unrecognizedParameters(req.body, WEBHOOK_ENDPOINT_BODY)));
  });

  router.patch('/webhook_endpoints/:id', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_write');
    const endpointId = id(req.params.id);
    const endpoint = await container.resolve(UpdateWebhookEndpoint).execute(caller, updateEndpointBody(endpointId, req.body));
    res.json(withWarnings(presentWebhookEndpoint(endpoint), unrecognizedParameters(req.body, WEBHOOK_ENDPOINT_BODY)));
  });

  router.delete('/webhook_endpoints/:id', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_write');
    await container.resolve(DeleteWebhookEndpoint).execute(caller, { id: id(req.params.id) });
    res.json({ message: 'Webhook endpoint deleted' });
  });

  router.post('/webhook_endpoints/:id/test', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_write');
    const endpointId = id(req.params.id);
    const { eventType, deliveryId } = await container.resolve(TestWebhookEndpoint).execute(caller, { id: endpointId, ...testEndpointBody(req.body) });
    res.json({ message: 'Test webhook queued', event_type: eventType, delivery_id: deliveryId });
  });

  router.get('/webhook_endpoints/:id/deliveries', async (req, res) => {
    const caller = principal(res, 'webhook_endpoints_read');
    const endpointId = id(req.params.id);
    const page = pageParams(req.query);
    const { items, total } = await container.resolve(ListWebhookDeliveries).execute(caller, { id: endpointId, page });
    res.json({ data: items.map(presentWebhookDelivery), total });
  });

  return router;
}
