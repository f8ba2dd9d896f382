import { html, type Json, json, OPERATIONS, PUBLIC, publicOperation, tokenParam } from './operation';
import { ref } from './schemas';

export const OPERATIONS_AND_PUBLIC_PATHS: Record<string, Json> = {
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
        "The deployment's business figures (emails sent, bounced and failed; webhook deliveries by outcome; queue depth per queue), read from PostgreSQL at scrape time, beside the api's own HTTP metrics. With METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>` is answered (not a channel's API token).",
      tag: OPERATIONS,
      responses: {
        '200': { description: 'Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } },
        '401': { description: 'METRICS_TOKEN is set and the request does not carry it.', content: json(ref('Error')) },
      },
    }),
  },
  '/confirm/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'confirmSubscription',
      summary: 'Double opt-in confirmation page',
      description:
        'The confirmation_url of a double opt-in. Sets confirmed_at (the subscriber is then confirmed) and emits subscriber.subscribed. A request the machine rules flag (HEAD, a known bot agent) confirms nothing and gets a page whose button confirms.',
      tag: PUBLIC,
      responses: {
        '200': html('Confirmed, already confirmed, or (a flagged request) the page with the confirm button.'),
        '404': html('An unknown token: a clear page, never an error dump.'),
        '410': html('A link replaced by a newer confirmation email.'),
      },
    }),
    post: publicOperation({
      operationId: 'confirmSubscriptionButton',
      summary: 'Double opt-in confirmation by the page button',
      description: "The button of the page a flagged GET gets: a person's press confirms, as the GET of a person does.",
      tag: PUBLIC,
      responses: {
        '200': html('Confirmed, or already confirmed.'),
        '404': html('An unknown token.'),
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
      description:
        'Sets is_active false and unsubscribed_at, and emits subscriber.unsubscribed. A one-click request the machine rules flag (a known bot agent) changes nothing and gets the page with the button; the button (field confirmed_by=person) always unsubscribes.',
      tag: PUBLIC,
      responses: { '200': html('Unsubscribed, or (a flagged one-click request) the page with the button.'), '404': html('An unknown token.') },
    }),
  },
  '/t/o/{token}': {
    parameters: [tokenParam],
    get: publicOperation({
      operationId: 'trackOpen',
      summary: 'Open tracking pixel',
      description:
        'A 1×1 GIF in the HTML part of tracked emails; records an open (email.opened), with machine and machine_reason (HEAD, a known bot agent, or a mail proxy within 2 s of delivery).',
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
        "Each link of a tracked email is rewritten to pass here; records a click (email.clicked, with machine and machine_reason: HEAD, a known bot agent, within 10 s of delivery, or every link of the email within 5 s), then redirects to the URL stored for that link of the recipient's broadcast, never to a URL taken from the request.",
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
      description: 'The visible unsubscribe link (include_unsubscribe_link of a broadcast or a transactional) and the List-Unsubscribe URL.',
      tag: PUBLIC,
      responses: { '200': html('The unsubscribe page.'), '404': html('An unknown token.') },
    }),
    post: {
      ...publicOperation({
        operationId: 'unsubscribeOneClick',
        summary: 'One-click unsubscribe (RFC 8058)',
        description:
          "What a mail client posts for `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. Unsubscribes the recipient, counts in the broadcast's issues.unsubscribes (a broadcast's link) and emits subscriber.unsubscribed. A request the machine rules flag (a known bot agent, or within 10 s of a broadcast email's delivery) changes nothing and gets the page with the button; the page's button (field confirmed_by=person) always unsubscribes.",
        tag: PUBLIC,
        responses: { '200': html('Unsubscribed, or (a flagged request) the page with the button.'), '404': html('An unknown token.') },
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
