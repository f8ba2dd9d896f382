import { authenticated, type Json, ok, param, WEBHOOKS } from './operation';
import { ref } from './schemas';

export const WEBHOOK_ENDPOINT_PATHS: Record<string, Json> = {
  '/api/v1/webhook_endpoints': {
    get: authenticated({
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints',
      description: 'Secrets are redacted.',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of endpoints.', ref('WebhookEndpointList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint',
      description:
        'The only response with the whole secret. Blank url or event types: 422 with the messages joined by commas (e.g. "Url can\'t be blank, Event types can\'t be blank"); an unknown event type, or a URL that is not HTTPS or resolves to a private address: 422.',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_write',
      body: { schema: ref('WebhookEndpointCreateBody') },
      responses: { '201': ok('Created, with the unredacted secret.', ref('WebhookEndpoint')) },
      errors: ['422'],
    }),
  },
  '/api/v1/webhook_endpoints/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      description: 'Unknown: 404 "Webhook endpoint not found".',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_read',
      responses: { '200': ok('The endpoint, secret redacted.', ref('WebhookEndpoint')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateWebhookEndpoint',
      summary: 'Update a webhook endpoint',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_write',
      body: { schema: ref('WebhookEndpointUpdateBody') },
      responses: { '200': ok('The endpoint, secret redacted.', ref('WebhookEndpoint')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Pending deliveries are cancelled.',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404'],
    }),
  },
  '/api/v1/webhook_endpoints/{id}/test': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'testWebhookEndpoint',
      summary: 'Send a test event',
      description:
        'Queues a delivery of the requested type (default test.webhook). Another type must be one the endpoint subscribes to, else 422 "Event type is not subscribed by this endpoint". Retried like any delivery.',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_write',
      body: { schema: ref('WebhookTestBody'), required: false },
      responses: { '200': ok('The delivery is queued.', ref('WebhookTestResult')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/webhook_endpoints/{id}/deliveries': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'listWebhookDeliveries',
      summary: 'Delivery history of an endpoint',
      description: 'Newest first; one record per (event, endpoint), attempt_number counts attempts.',
      tag: WEBHOOKS,
      permission: 'webhook_endpoints_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of deliveries.', ref('WebhookDeliveryList')) },
      errors: ['404', '422'],
    }),
  },
};
