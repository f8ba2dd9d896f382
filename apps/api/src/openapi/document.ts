import { EVENT_TYPE_GROUPS, PERMISSIONS, WEBHOOK_HEADERS } from '@mailcast/domain';
import { pageSchema } from '../http/params';
import { queryParameters } from './schema-helpers';
import { ref, SCHEMAS, eventOf, type Schema } from './schemas';
import {
  BROADCASTS,
  DISCOVERY,
  SEGMENTS,
  EMAIL_SERVERS,
  json,
  type Json,
  OPERATIONS,
  RATE_LIMIT_HEADERS,
  PUBLIC,
  STATISTICS,
  SUBSCRIBERS,
  WEBHOOKS,
} from './operation';
import { BROADCAST_PATHS } from './broadcasts.paths';
import { SUBSCRIBER_PATHS } from './subscribers.paths';
import { WEBHOOK_ENDPOINT_PATHS } from './webhooks.paths';
import { OPERATIONS_AND_PUBLIC_PATHS } from './operations.paths';
import { PREVIEW_PATHS } from './preview.paths';
import { SUPPRESSION_PATHS, SUPPRESSIONS } from './suppressions.paths';
import { TEMPLATE_PATHS, TEMPLATES } from './templates.paths';
import { TRANSACTIONAL_PATHS, TRANSACTIONALS } from './transactionals.paths';
import { DISCOVERY_PATHS } from './discovery.paths';
import { CHANNEL_SETTINGS_PATHS } from './channel-settings.paths';
import { SEGMENT_PATHS } from './segments.paths';
import { SEQUENCE_PATHS, SEQUENCES } from './sequences.paths';
import { OPT_IN_FORM_PATHS, OPT_IN_FORMS } from './opt-in-forms.paths';
import { EMAIL_SERVER_PATHS } from './email-servers.paths';
import { INBOUND, INBOUND_PATHS } from './inbound.paths';
import { ARCHIVE_PATHS } from './archive.paths';
import { TOPIC_PATHS } from './topics.paths';
import { FORM_PUBLIC_PATHS } from './forms-public.paths';
import { USER_PATHS, USERS } from './users.paths';
import { AUDIT_LOG, AUDIT_LOG_PATHS } from './audit-log.paths';
import { AUTH_PATHS, SIGN_IN } from './auth.paths';
import { AUTH_MFA_PATHS } from './auth-mfa.paths';
import { EXPORT, EXPORT_PATHS } from './export.paths';

/**
 * The OpenAPI 3.1 document of the whole API, written from the spec and the decisions in docs/
 * (not from the routes), so the agreement test (openapi.int.test.ts) can hold the two against each
 * other. Each area's paths live in its own `<area>.paths.ts`; enumerations come from the domain
 * package, so they cannot drift from what the code accepts.
 */

const PATHS: Record<string, Json> = {
  ...BROADCAST_PATHS,
  ...PREVIEW_PATHS,
  ...SUBSCRIBER_PATHS,
  ...WEBHOOK_ENDPOINT_PATHS,
  ...OPERATIONS_AND_PUBLIC_PATHS,
  ...ARCHIVE_PATHS,
  ...SUPPRESSION_PATHS,
  ...TEMPLATE_PATHS,
  ...TRANSACTIONAL_PATHS,
  ...DISCOVERY_PATHS,
  ...CHANNEL_SETTINGS_PATHS,
  ...SEGMENT_PATHS,
  ...SEQUENCE_PATHS,
  ...OPT_IN_FORM_PATHS,
  ...EMAIL_SERVER_PATHS,
  ...INBOUND_PATHS,
  ...TOPIC_PATHS,
  ...FORM_PUBLIC_PATHS,
  ...USER_PATHS,
  ...AUDIT_LOG_PATHS,
  ...AUTH_PATHS,
  ...AUTH_MFA_PATHS,
  ...EXPORT_PATHS,
};

const errorResponse = (description: string, schema: Schema = ref('Error'), headers?: Json): Json => ({
  description,
  ...(headers ? { headers } : {}),
  content: json(schema),
});

const COMPONENTS = {
  securitySchemes: {
    // docs/teams.md, Signing in: the dashboard's session, on the /auth routes (and /api/v1 without a token).
    sessionCookie: { type: 'apiKey', in: 'cookie', name: 'mailcast_session', description: 'A dashboard session, from `POST /auth/sign_in`.' },
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API token (`mc_…`) issued by `npm run -s admin -- token create`. It belongs to one channel and holds permissions: ' + PERMISSIONS.join(', ') + '.',
    },
  },
  parameters: {
    id: { name: 'id', in: 'path', required: true, description: 'The resource id. One of another channel is a 404.', schema: { type: 'integer', minimum: 1 } },
    ...Object.fromEntries(queryParameters(pageSchema).map((p) => [p.name as string, p])),
  },
  headers: {
    'X-RateLimit-Limit': { description: 'Requests allowed per token per one-minute window (while the limit is on).', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'When the window rolls over (ISO 8601 instant).', schema: { type: 'string', format: 'date-time' } },
    'Retry-After': { description: 'Whole seconds until the window rolls over (at least 1).', required: true, schema: { type: 'integer', minimum: 1 } },
  },
  responses: {
    Unauthorized: errorResponse('A missing or invalid token, or a token without the permission of the operation: always `{"error": "Unauthorized"}`.', {
      type: 'object',
      allOf: [ref('Error')],
      properties: { error: { const: 'Unauthorized' } },
    }),
    Forbidden: errorResponse(
      'A valid token asking for what only an admin (cross-channel) token may do, e.g. `{"error": "Admin API token required for global suppressions"}`.',
      ref('Error'),
      RATE_LIMIT_HEADERS,
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
    Unavailable: errorResponse(
      'PostgreSQL is out of reach (down, restarting, out of connections): `{"error": "Service unavailable: the database cannot be reached, try again shortly"}`. Send the request again after Retry-After seconds: each write commits whole or not at all, so one the database took just before it went away is there in full.',
      ref('Error'),
      { 'Retry-After': { description: 'Whole seconds to wait before sending the request again.', required: true, schema: { type: 'integer', minimum: 1 } } },
    ),
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
  subscriberEvent: webhook(
    'subscriberEvent',
    'Subscriber events',
    EVENT_TYPE_GROUPS.subscriber.filter((t) => t !== 'subscriber.preferences_updated'),
    ref('SubscriberEventData'),
  ),
  // docs/topics.md, "The event".
  subscriberPreferencesEvent: webhook(
    'subscriberPreferencesEvent',
    'Subscriber preferences',
    ['subscriber.preferences_updated'],
    ref('SubscriberPreferencesEventData'),
  ),
  subscribersPurgeEvent: webhook('subscribersPurgeEvent', 'A channel purged', EVENT_TYPE_GROUPS.subscribers, ref('SubscribersPurgeEventData')),
  emailEvent: webhook('emailEvent', 'Email events', EVENT_TYPE_GROUPS.email, ref('EmailEventData')),
  broadcastEvent: webhook(
    'broadcastEvent',
    'Broadcast events',
    EVENT_TYPE_GROUPS.broadcast.filter((t) => t !== 'broadcast.ab_test_decided'),
    ref('BroadcastEventData'),
  ),
  // docs/subject-tests.md: once per test, with each part's figures and the winner.
  subjectTestDecidedEvent: webhook('subjectTestDecidedEvent', 'A subject test decided', ['broadcast.ab_test_decided'], ref('SubjectTestDecidedEventData')),
  attemptExhausted: webhook('attemptExhaustedEvent', 'Retries exhausted', ['message.attempt.exhausted'], ref('AttemptExhaustedEventData')),
  sequenceEvent: webhook('sequenceEvent', 'Sequence events', EVENT_TYPE_GROUPS.sequence, ref('SequenceEventData')),
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
      { name: SEGMENTS, description: 'Audiences defined by rules, evaluated when read or sent to.' },
      { name: SEQUENCES, description: 'Drip automations: a tree of steps each enrolled subscriber walks.' },
      { name: OPT_IN_FORMS, description: 'Sign-up forms: hosted pages and embeddable widgets, their variants and figures.' },
      { name: EMAIL_SERVERS, description: 'The SMTP servers a channel sends through: TLS, credentials, sending limits and DKIM.' },
      { name: DISCOVERY, description: 'What a client asks first: who it is, whether the channel can send, and this document.' },
      { name: OPERATIONS, description: 'Health, metrics and this documentation; no authentication.' },
      { name: PUBLIC, description: 'Pages linked from emails; no authentication.' },
      { name: TRANSACTIONALS, description: 'One-to-one email sent from your own code, with idempotency keys.' },
      { name: TEMPLATES, description: 'Reusable subjects and bodies for broadcasts and confirmation emails.' },
      { name: SUPPRESSIONS, description: 'Addresses that receive no email: per channel, and installation-wide.' },
      { name: INBOUND, description: "Providers' bounce and complaint notifications; no token, each provider's signature." },
      { name: USERS, description: 'The people who sign in to the dashboard, and their permissions per channel and over the installation.' },
      { name: AUDIT_LOG, description: 'Every write by a token or a signed-in user, across the installation; admin tokens and sudo users.' },
      { name: SIGN_IN, description: "The dashboard's password sign-in, sessions and password reset (a session cookie, not a token)." },
      { name: EXPORT, description: "A channel's data for moving it elsewhere, read by an admin token under /api/migration/v1 (docs/export.md)." },
    ],
    paths: PATHS,
    webhooks: WEBHOOK_EVENTS,
    components: COMPONENTS,
  };
}

/** Built once: the document is data and never changes while the process runs. */
export const OPENAPI_DOCUMENT: Readonly<Json> = buildOpenApiDocument();
