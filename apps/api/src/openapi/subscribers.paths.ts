import { emailBodySchema, historyQuerySchema, listQuerySchema } from '../http/subscribers/subscribers.schemas';
import { authenticated, type Json, ok, subscriberByEmail, SUBSCRIBERS } from './operation';
import { queryParameters } from './schema-helpers';
import { ref } from './schemas';

export const SUBSCRIBER_PATHS: Record<string, Json> = {
  '/api/v1/subscribers.json': {
    get: authenticated({
      operationId: 'listSubscribers',
      summary: 'List subscribers',
      description: 'Filtered and paginated, up to 250 subscribers per page.',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: queryParameters(listQuerySchema),
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
      description: 'Exact, case-insensitive address match (docs/api-decisions.md). Unknown: 404 "Subscriber not found".',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: queryParameters(emailBodySchema),
      responses: { '200': ok('The subscriber.', ref('Subscriber')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/history.json': {
    get: authenticated({
      operationId: 'getSubscriberHistory',
      summary: "A subscriber's history",
      description:
        'Every broadcast, sequence and transactional email sent to the address in the channel, newest first, 100 a page (docs/subscribers.md, "History"). Unknown (or redacted) address: 404 "Subscriber not found".',
      tag: SUBSCRIBERS,
      permission: 'subscribers_read',
      parameters: queryParameters(historyQuerySchema),
      responses: { '200': ok('A page of the history.', ref('SubscriberHistory')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/subscribers/deactivate.json': subscriberByEmail(
    'deactivateSubscriber',
    'Deactivate a subscriber',
    'Administrative: is_active false, unsubscribed_at unchanged; reversed by activate.',
    'The subscriber, is_active false.',
  ),
  '/api/v1/subscribers/activate.json': subscriberByEmail('activateSubscriber', 'Activate a subscriber', 'is_active true.', 'The subscriber, is_active true.'),
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
};
