import { EVENT_TYPE_GROUPS, PERMISSIONS, TIMEFRAMES, TIMELINE_METRICS, WEBHOOK_HEADERS, type Permission } from '@mailcast/domain';
import { eventOf, ref, SCHEMAS, type Schema } from './schemas';

/**
 * The OpenAPI 3.1 document of the whole API, written from the spec and CONTRACT.md (not from
 * the routes), so the agreement test (openapi.int.test.ts) can hold the two against each other.
 * Enumerations come from the domain package, so they cannot drift from what the code accepts.
 */

type Json = { [key: string]: unknown };

const json = (schema: Schema) => ({ 'application/json': { schema } });

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A response of an authenticated operation: it carries the X-RateLimit-* headers. */
const ok = (description: string, schema: Schema): Json => ({ description, headers: RATE_LIMIT_HEADERS, content: json(schema) });

const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  permission: Permission;
  parameters?: Json[];
  body?: { schema: Schema; required?: boolean; description?: string };
  responses: Record<string, Json>;
  /** Error statuses beyond 401, 429 and 500 (which every authenticated operation has). */
  errors: Array<'400' | '404' | '413' | '415' | '422'>;
}

function authenticated(o: Operation): Json {
  const errors: Record<string, Json> = {
    '401': response('Unauthorized'),
    '429': response('RateLimited'),
    '500': response('InternalError'),
  };
  const bodyErrors = o.body ? (['400', '413', '415'] as const) : [];
  for (const status of [...bodyErrors, ...o.errors].sort()) {
    errors[status] = response(
      { '400': 'InvalidJson', '404': 'NotFound', '413': 'TooLarge', '415': 'UnsupportedEncoding', '422': 'Unprocessable' }[status],
    );
  }
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: `${o.description ? `${o.description}\n\n` : ''}Permission: \`${o.permission}\`.`,
    tags: [o.tag],
    'x-permission': o.permission,
    ...(o.parameters ? { parameters: o.parameters } : {}),
    ...(o.body
      ? {
          requestBody: {
            required: o.body.required ?? true,
            ...(o.body.description ? { description: o.body.description } : {}),
            content: json(o.body.schema),
          },
        }
      : {}),
    responses: { ...o.responses, ...errors },
  };
}

const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });

const query = (name: string, schema: Schema, description: string, extra: Json = {}): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  ...extra,
});

const BROADCASTS = 'Broadcasts';
const STATISTICS = 'Statistics';
const SUBSCRIBERS = 'Subscribers';
const WEBHOOKS = 'Webhook endpoints';
const OPERATIONS = 'Operations';
const PUBLIC = 'Public pages';

function broadcastAction(operationId: string, verb: string, summary: string, description: string): Json {
  return {
    post: authenticated({
      operationId,
      summary,
      description,
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      responses: { '200': ok(`The broadcast ${verb}.`, ref('BroadcastAction')) },
      errors: ['404', '422'],
    }),
  };
}

const subscriberByEmail = (operationId: string, summary: string, description: string, result: string): Json => ({
  post: authenticated({
    operationId,
    summary,
    description,
    tag: SUBSCRIBERS,
    permission: 'subscribers_write',
    body: { schema: ref('EmailBody') },
    responses: { '200': ok(result, ref('Subscriber')) },
    errors: ['404', '422'],
  }),
});

const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

function publicOperation(o: { operationId: string; summary: string; description: string; tag: string; responses: Record<string, Json>; parameters?: Json[] }): Json {
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    tags: [o.tag],
    security: [],
    ...(o.parameters ? { parameters: o.parameters } : {}),
    responses: o.responses,
  };
}

const tokenParam: Json = {
  name: 'token',
  in: 'path',
  required: true,
  description: 'The opaque token of the link (it names one recipient; it cannot be forged or enumerated).',
  schema: { type: 'string' },
};

const PATHS: Record<string, Json> = {
  '/api/v1/broadcasts': {
    get: authenticated({
      operationId: 'listBroadcasts',
      summary: 'List broadcasts',
      description: 'Most recently created first (ties: newest id first).',
      tag: BROADCASTS,
      permission: 'broadcasts_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of broadcasts.', ref('BroadcastList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createBroadcast',
      summary: 'Create a broadcast',
      description:
        'Created as a draft. A blank subject is a 422 "Subject can\'t be blank". Subject, body and html_body are Liquid templates; invalid Liquid is a 422.',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('BroadcastCreateBody') },
      responses: { '201': ok('Created.', ref('BroadcastCreated')) },
      errors: ['422'],
    }),
  },
  '/api/v1/broadcasts/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcast',
      summary: 'Get a broadcast',
      tag: BROADCASTS,
      permission: 'broadcasts_read',
      responses: { '200': ok('The broadcast.', ref('Broadcast')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateBroadcast',
      summary: 'Update a broadcast',
      description:
        'Only the fields given change. Only in draft or future_scheduled; otherwise 422 "Broadcast cannot be updated in current status".',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('BroadcastUpdateBody') },
      responses: { '200': ok('The updated broadcast.', ref('Broadcast')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteBroadcast',
      summary: 'Delete a broadcast',
      description: 'Only in draft or future_scheduled; otherwise 422 "Broadcast cannot be deleted in current status".',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/send_broadcast': {
    parameters: [param('id')],
    ...broadcastAction(
      'sendBroadcast',
      'is queued for immediate sending (status scheduled)',
      'Send a broadcast now',
      'From draft or failed; the broadcast needs a subject and a body, the channel an email server. 422 messages: "Broadcast is not ready to send", "Broadcast can only be sent from draft or failed status", "SMTP settings are not configured, please check your settings". Emits broadcast.scheduled.',
    ),
  },
  '/api/v1/broadcasts/{id}/schedule_broadcast': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'scheduleBroadcast',
      summary: 'Schedule a broadcast',
      description:
        'From draft or future_scheduled (a reschedule). The body may be omitted when both fields are already set on the broadcast. 422 messages: "Broadcast cannot be scheduled in current status", "Scheduled send time must be in the future", "Scheduled timezone is invalid". Emits broadcast.scheduled.',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('ScheduleBody'), required: false },
      responses: { '200': ok('Scheduled (status future_scheduled).', ref('BroadcastScheduled')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/cancel_schedule': {
    parameters: [param('id')],
    ...broadcastAction(
      'cancelSchedule',
      'is back in draft',
      'Cancel a scheduled broadcast',
      'From future_scheduled; otherwise 422 "Broadcast is not scheduled".',
    ),
  },
  '/api/v1/broadcasts/{id}/pause_broadcast': {
    parameters: [param('id')],
    ...broadcastAction('pauseBroadcast', 'is paused', 'Pause a sending broadcast', 'Beyond the spec (CONTRACT §2). Emits broadcast.paused.'),
  },
  '/api/v1/broadcasts/{id}/resume_broadcast': {
    parameters: [param('id')],
    ...broadcastAction('resumeBroadcast', 'is sending again', 'Resume a paused broadcast', 'Beyond the spec (CONTRACT §2). Emits broadcast.sending.'),
  },
  '/api/v1/broadcasts/{id}/abort_broadcast': {
    parameters: [param('id')],
    ...broadcastAction(
      'abortBroadcast',
      'is aborted',
      'Abort a broadcast',
      'Beyond the spec (CONTRACT §2): stops sending for good. Emits broadcast.aborted.',
    ),
  },
  '/api/v1/broadcasts/{id}/statistics': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastStatistics',
      summary: 'Statistics summary of a broadcast',
      description:
        'Counts are of unique recipients. Rates are percentages from 0 to 100 with two decimals: delivery_rate over total_recipients, every other rate over sent; a zero denominator gives 0.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      responses: { '200': ok('The summary.', ref('StatisticsSummary')) },
      errors: ['404'],
    }),
  },
  '/api/v1/broadcasts/{id}/statistics/timeline': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastTimeline',
      summary: 'Timeline of a broadcast',
      description:
        'The window begins at begin_send_at floored to the interval (for a broadcast not yet sent: now minus the timeframe) and spans the timeframe. An unknown timeframe or metric is a 422.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      parameters: [
        query('timeframe', { type: 'string', enum: Object.keys(TIMEFRAMES), default: '24h' }, 'Window length; fixes the interval.'),
        query(
          'metrics',
          { type: 'string', default: TIMELINE_METRICS.join(',') },
          `Comma-separated subset of ${TIMELINE_METRICS.join(', ')}; default all.`,
        ),
      ],
      responses: { '200': ok('The timeline.', ref('Timeline')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/statistics/links': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastLinks',
      summary: 'Link clicks of a broadcast',
      description: 'An unknown sort or order, or a limit below 1, is a 422; a limit above 500 is clamped to 500.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      parameters: [
        query('sort', { type: 'string', enum: ['total', 'unique'], default: 'total' }, 'Sort by total or unique clicks.'),
        query('order', { type: 'string', enum: ['desc', 'asc'], default: 'desc' }, 'Sort order.'),
        query('limit', { type: 'integer', minimum: 1, default: 100 }, 'Links returned; default 100, at most 500 (clamped).'),
      ],
      responses: { '200': ok('The links.', ref('LinkStatistics')) },
      errors: ['404', '422'],
    }),
  },

  '/api/v1/subscribers.json': {
    get: authenticated({
      operationId: 'listSubscribers',
      summary: 'List subscribers',
      description: 'Filtered and paginated, up to 250 subscribers per page.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: [
        query('is_active', { type: 'string', enum: ['true', 'false'] }, 'Active or not.'),
        query('source', { type: 'string' }, 'Exact source.'),
        query('email', { type: 'string' }, 'Partial, case-insensitive match (a domain part matches every address containing it).'),
        query('confirmation_status', { type: 'string', enum: ['confirmed', 'unconfirmed'] }, 'Confirmed or not.'),
        query('created_after', { type: 'string', format: 'date-time' }, 'Created on or after.'),
        query('created_before', { type: 'string', format: 'date-time' }, 'Created on or before.'),
        query('tags[]', { type: 'array', items: { type: 'string' } }, 'The subscriber has every listed tag (AND). Repeated: `tags[]=a&tags[]=b`.', {
          style: 'form',
          explode: true,
        }),
        query(
          'custom_data',
          { type: 'object', additionalProperties: { type: 'string' } },
          'Containment: `custom_data[key]=value` for each pair; numeric strings are read as numbers, true/false as booleans.',
          { style: 'deepObject', explode: true },
        ),
        query('page', { type: 'integer', minimum: 1, default: 1 }, 'Page number.'),
      ],
      responses: { '200': ok('A page of subscribers.', ref('SubscriberList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createSubscriber',
      summary: 'Create (or update) a subscriber',
      description:
        'A new email: 201 with the subscriber (subscriber.created). An existing email without double opt-in: 200 with the updated, reactivated subscriber. With double opt-in: a confirmation email is sent and the answer is the double opt-in shape (201 for a new subscriber); an already confirmed subscriber is returned as is. Invalid fields: 422 `{"errors": {...}}`; `tag_list`: 422 `{"error": ...}`.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('SubscriberCreateBody') },
      responses: {
        '200': ok('The existing subscriber, updated (or, with double opt-in, a fresh confirmation).', {
          anyOf: [ref('Subscriber'), ref('DoubleOptInResult')],
        }),
        '201': ok('Created.', { anyOf: [ref('Subscriber'), ref('DoubleOptInResult')] }),
      },
      errors: ['422'],
    }),
    patch: authenticated({
      operationId: 'updateSubscriber',
      summary: 'Update a subscriber',
      description: 'Identified by the top-level `email`, else by `subscriber[email]`. Unknown: 404 "Subscriber not found".',
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('SubscriberUpdateBody') },
      responses: { '200': ok('The updated subscriber.', ref('Subscriber')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/find.json': {
    get: authenticated({
      operationId: 'findSubscriber',
      summary: 'Find a subscriber by email',
      description: 'Exact, case-insensitive address match (CONTRACT §2). Unknown: 404 "Subscriber not found".',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: [{ name: 'email', in: 'query', required: true, description: 'The address.', schema: { type: 'string' } }],
      responses: { '200': ok('The subscriber.', ref('Subscriber')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/deactivate.json': subscriberByEmail(
    'deactivateSubscriber',
    'Deactivate a subscriber',
    'Administrative: is_active false, unsubscribed_at unchanged; reversed by activate.',
    'The subscriber, is_active false.',
  ),
  '/api/v1/subscribers/activate.json': subscriberByEmail(
    'activateSubscriber',
    'Activate a subscriber',
    'is_active true.',
    'The subscriber, is_active true.',
  ),
  '/api/v1/subscribers/add_tag.json': {
    post: authenticated({
      operationId: 'addSubscriberTags',
      summary: 'Add tags to a subscriber',
      description: 'Merged into the existing tags.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('TagsBody') },
      responses: { '200': ok('The subscriber.', ref('Subscriber')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/remove_tag.json': {
    delete: authenticated({
      operationId: 'removeSubscriberTags',
      summary: 'Remove tags from a subscriber',
      description: 'The body is sent with the DELETE. Without tags: 422 "tags parameter is required".',
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('TagsBody') },
      responses: { '200': ok('The subscriber.', ref('Subscriber')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/unsubscribe.json': subscriberByEmail(
    'unsubscribeSubscriber',
    'Unsubscribe a subscriber',
    'An explicit opt-out: is_active false and unsubscribed_at set; reversed by resubscribe. Emits subscriber.unsubscribed.',
    'The subscriber, unsubscribed.',
  ),
  '/api/v1/subscribers/resubscribe.json': subscriberByEmail(
    'resubscribeSubscriber',
    'Resubscribe a subscriber',
    'is_active true, unsubscribed_at null. Emits subscriber.subscribed.',
    'The subscriber, subscribed again.',
  ),
  '/api/v1/subscribers/redact.json': {
    post: authenticated({
      operationId: 'redactSubscriber',
      summary: 'Redact a subscriber (GDPR)',
      description:
        'Irreversible. The email becomes `redacted-<id>@redacted.invalid`; names, IP address and custom data are removed; statistics are kept. Emits subscriber.deleted. A failure is a 422 "Failed to redact subscriber" followed by the reason.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_write',
      body: { schema: ref('EmailBody') },
      responses: { '200': ok('Redacted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },

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

  '/api/v1/openapi.json': {
    get: publicOperation({
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'The OpenAPI 3.1 document of the whole API. No authentication.',
      tag: OPERATIONS,
      responses: { '200': { description: 'The document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    }),
  },
  '/docs': {
    get: publicOperation({
      operationId: 'getApiDocs',
      summary: 'Interactive API documentation',
      description: 'Swagger UI over /api/v1/openapi.json; its static assets are served under /docs/. No authentication.',
      tag: OPERATIONS,
      responses: { '200': html('The documentation page.') },
    }),
  },
  '/healthz': {
    get: publicOperation({
      operationId: 'getHealth',
      summary: 'Liveness',
      description: 'The process answers.',
      tag: OPERATIONS,
      responses: { '200': { description: 'Alive.', content: json(ref('Health')) } },
    }),
  },
  '/readyz': {
    get: publicOperation({
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: 'Ready when the database answers and no migration is pending.',
      tag: OPERATIONS,
      responses: {
        '200': { description: 'Ready.', content: json(ref('Readiness')) },
        '503': { description: 'Not ready.', content: json(ref('Readiness')) },
      },
    }),
  },
  '/metrics': {
    get: publicOperation({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description:
        "The deployment's business figures (emails sent, bounced and failed; webhook deliveries by outcome; queue depth per queue), read from PostgreSQL at scrape time, beside the api's own HTTP metrics.",
      tag: OPERATIONS,
      responses: {
        '200': { description: 'Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } },
      },
    }),
  },
  '/confirm/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'confirmSubscription',
      summary: 'Double opt-in confirmation page',
      description: 'The confirmation_url of a double opt-in. Sets confirmed_at (the subscriber is then confirmed) and emits subscriber.subscribed.',
      tag: PUBLIC,
      responses: {
        '200': html('Confirmed, or already confirmed.'),
        '404': html('An unknown token: a clear page, never an error dump.'),
        '410': html('A link replaced by a newer confirmation email.'),
      },
    }),
  },
  '/confirm/{token}/unsubscribe': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'confirmationUnsubscribePage',
      summary: 'Unsubscribe page of a confirmation email',
      description: 'Shows a button only: a link scanner opening the URL unsubscribes nobody.',
      tag: PUBLIC,
      responses: { '200': html('The page with the unsubscribe button.') },
    }),
    post: publicOperation({
      operationId: 'confirmationUnsubscribe',
      summary: 'Unsubscribe through a confirmation email (button or RFC 8058 one-click)',
      description: 'Sets is_active false and unsubscribed_at, and emits subscriber.unsubscribed.',
      tag: PUBLIC,
      responses: { '200': html('Unsubscribed.'), '404': html('An unknown token.') },
    }),
  },
  '/t/o/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'trackOpen',
      summary: 'Open tracking pixel',
      description: 'A 1×1 GIF in the HTML part of tracked emails; records an open (email.opened).',
      tag: PUBLIC,
      responses: {
        '200': {
          description: 'A transparent 1×1 GIF.',
          content: { 'image/gif': { schema: { type: 'string', contentMediaType: 'image/gif' } } },
        },
      },
    }),
  },
  '/t/c/{token}/{link}': {
    parameters: [
      tokenParam,
      { name: 'link', in: 'path', required: true, description: "The link's identifier within its broadcast.", schema: { type: 'string' } },
    ],
    get: publicOperation({
      operationId: 'trackClick',
      summary: 'Click tracking redirect',
      description:
        "Each link of a tracked email is rewritten to pass here; records a click (email.clicked), then redirects to the URL stored for that link of the recipient's broadcast, never to a URL taken from the request.",
      tag: PUBLIC,
      responses: {
        '302': {
          description: 'To the original link.',
          headers: { Location: { description: 'The original URL.', schema: { type: 'string', format: 'uri' } } },
        },
        '404': html('An unknown or forged token.'),
      },
    }),
  },
  '/u/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'unsubscribePage',
      summary: 'Unsubscribe page',
      description: 'The visible unsubscribe link (include_unsubscribe_link) and the List-Unsubscribe URL.',
      tag: PUBLIC,
      responses: { '200': html('The unsubscribe page.'), '404': html('An unknown token.') },
    }),
    post: {
      ...publicOperation({
        operationId: 'unsubscribeOneClick',
        summary: 'One-click unsubscribe (RFC 8058)',
        description:
          'What a mail client posts for `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. Unsubscribes the recipient, counts in the broadcast\'s issues.unsubscribes and emits subscriber.unsubscribed.',
        tag: PUBLIC,
        responses: { '200': html('Unsubscribed.'), '404': html('An unknown token.') },
      }),
      requestBody: {
        required: false,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { 'List-Unsubscribe': { const: 'One-Click' } } },
          },
        },
      },
    },
  },
};

const errorResponse = (description: string, schema: Schema = ref('Error'), headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: json(schema),
});

const COMPONENTS = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API token (`mc_…`) issued by `npm run -s admin -- token create`. It belongs to one channel and holds permissions: ' + PERMISSIONS.join(', ') + '.',
    },
  },
  parameters: {
    id: { name: 'id', in: 'path', required: true, description: 'The resource id. One of another channel is a 404.', schema: { type: 'integer', minimum: 1 } },
    limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size: default 25, at most 100 (a larger value is clamped). A non-integer or negative value is a 422.',
      schema: { type: 'integer', minimum: 0, default: 25 },
    },
    offset: {
      name: 'offset',
      in: 'query',
      required: false,
      description: 'Items skipped: default 0. A non-integer or negative value is a 422.',
      schema: { type: 'integer', minimum: 0, default: 0 },
    },
  },
  headers: {
    'X-RateLimit-Limit': { description: 'Requests allowed per token per one-minute window (while the limit is on).', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'When the window rolls over (ISO 8601 instant).', schema: { type: 'string', format: 'date-time' } },
    'Retry-After': { description: 'Whole seconds until the window rolls over (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
  },
  responses: {
    Unauthorized: errorResponse(
      'A missing or invalid token, or a token without the permission of the operation: always `{"error": "Unauthorized"}`.',
      { type: 'object', allOf: [ref('Error')], properties: { error: { const: 'Unauthorized' } } },
    ),
    NotFound: errorResponse('The resource does not exist in the caller\'s channel, e.g. `{"error": "Broadcast not found"}`.', ref('Error'), RATE_LIMIT_HEADERS),
    Unprocessable: errorResponse(
      'Validation failed, an invalid status transition, or missing configuration: `{"error": "..."}`, or `{"errors": {field: [...]}}` for subscriber fields.',
      { anyOf: [ref('Error'), ref('FieldErrors')] },
      RATE_LIMIT_HEADERS,
    ),
    InvalidJson: errorResponse('The body is not valid JSON, or not a JSON object or array: `{"error": "Invalid JSON"}`.', ref('Error'), RATE_LIMIT_HEADERS),
    TooLarge: errorResponse('The body is over 1 MB: `{"error": "Request body too large"}`.', ref('Error'), RATE_LIMIT_HEADERS),
    UnsupportedEncoding: errorResponse('An unsupported Content-Encoding or charset.', ref('Error'), RATE_LIMIT_HEADERS),
    RateLimited: errorResponse('Over the per-token limit: `{"error": "Rate limit exceeded"}`.', ref('Error'), {
      'Retry-After': { $ref: '#/components/headers/Retry-After' },
      ...RATE_LIMIT_HEADERS,
    }),
    InternalError: errorResponse('Unexpected: `{"error": "Internal server error (id <uuid>)"}`; the id is in the log, nothing else is disclosed.'),
  },
  schemas: SCHEMAS,
};

const SIGNATURE_PARAMETERS: Json[] = [
  {
    name: WEBHOOK_HEADERS.id,
    in: 'header',
    required: true,
    description: 'The event id (the same as the payload id); deduplicate by it.',
    schema: { type: 'string' },
  },
  {
    name: WEBHOOK_HEADERS.timestamp,
    in: 'header',
    required: true,
    description: 'Unix time in seconds when the payload was signed. Reject one more than 300 seconds from now.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: WEBHOOK_HEADERS.signature,
    in: 'header',
    required: true,
    description:
      '`v1,` + Base64 (standard, padded) of HMAC-SHA256 over `<timestamp>.<raw body>`, keyed with the UTF-8 bytes of the whole secret. Verify with `verifyWebhook` (@mailcast/client).',
    schema: { type: 'string', pattern: '^v1,' },
  },
  { name: 'User-Agent', in: 'header', required: true, schema: { const: 'Mailcast-Webhooks/1.0' } },
];

function webhook(operationId: string, summary: string, types: readonly string[], data: Schema): Json {
  return {
    post: {
      operationId,
      summary,
      description: `Sent to each active endpoint subscribed to the type: ${types.map((t) => `\`${t}\``).join(', ')}. Any 2xx within 30 seconds is success; anything else is retried on the endpoint's schedule.`,
      parameters: SIGNATURE_PARAMETERS,
      requestBody: { required: true, content: json(eventOf(types, data)) },
      responses: { '200': { description: 'Any 2xx acknowledges the delivery.' } },
    },
  };
}

const WEBHOOK_EVENTS = {
  subscriberEvent: webhook('subscriberEvent', 'Subscriber events', EVENT_TYPE_GROUPS.subscriber, ref('SubscriberEventData')),
  emailEvent: webhook('emailEvent', 'Email events', EVENT_TYPE_GROUPS.email, ref('EmailEventData')),
  broadcastEvent: webhook('broadcastEvent', 'Broadcast events', EVENT_TYPE_GROUPS.broadcast, ref('BroadcastEventData')),
  attemptExhausted: webhook('attemptExhaustedEvent', 'Retries exhausted', ['message.attempt.exhausted'], ref('AttemptExhaustedEventData')),
  sequenceEvent: webhook('sequenceEvent', 'Sequence events', EVENT_TYPE_GROUPS.sequence, {
    type: 'object',
    description: 'Not specified.',
  }),
  testWebhook: webhook('testWebhookEvent', 'Test event', ['test.webhook'], {
    type: 'object',
    description: 'Sent by the test operation; the data is informational.',
  }),
};

const DESCRIPTION = `Mailcast: broadcasts (email campaigns), the subscribers who receive them, and signed webhooks.

Every \`/api/v1\` operation needs \`Authorization: Bearer <token>\` (except this document); all data is scoped to the token's channel, and a resource of another channel is treated as nonexistent (404).

- Bodies are JSON. Create and update bodies are nested under the resource key (\`broadcast\`, \`subscriber\`, \`webhook_endpoint\`) as documented; the same fields flat at the top level are accepted too (compatibility with clients of the reference service).
- Errors are \`{"error": "..."}\`, or \`{"errors": {"field": ["..."]}}\` for subscriber field validation. 401 is always \`{"error": "Unauthorized"}\`; malformed JSON is 400 \`{"error": "Invalid JSON"}\`; an unknown route is 404 \`{"error": "Not found"}\`.
- While the rate limit is on (\`RATE_LIMIT_PER_MINUTE\`, default 1200 per token per minute), every authenticated answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`; over it the answer is 429 with \`Retry-After\`.
- Webhook deliveries are described under \`webhooks\`: each carries the ${Object.values(WEBHOOK_HEADERS).join(', ')} headers.`;

export function buildOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mailcast API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ bearerAuth: [] }],
    tags: [
      { name: BROADCASTS, description: 'Email campaigns: drafted, sent or scheduled, paused, resumed or aborted.' },
      { name: STATISTICS, description: 'Delivery and engagement figures of a broadcast.' },
      { name: SUBSCRIBERS, description: "The people on the channel's list." },
      { name: WEBHOOKS, description: 'Customer URLs receiving signed event notifications, and their delivery history.' },
      { name: OPERATIONS, description: 'Health, metrics and this documentation; no authentication.' },
      { name: PUBLIC, description: 'Pages linked from emails; no authentication.' },
    ],
    paths: PATHS,
    webhooks: WEBHOOK_EVENTS,
    components: COMPONENTS,
  };
}

/** Built once: the document is data and never changes while the process runs. */
export const OPENAPI_DOCUMENT: Readonly<Json> = buildOpenApiDocument();
