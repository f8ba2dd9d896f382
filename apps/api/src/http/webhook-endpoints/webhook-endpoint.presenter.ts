import type { WebhookDelivery, WebhookEndpoint } from '@mailcast/core';
import { redactSecret } from '@mailcast/domain';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * The spec's Webhook endpoint. `secret: 'full'` only for the creation response: everywhere
 * else the secret is redacted (spec: Webhook endpoint; docs/webhooks.md: whsec_, stars, last four).
 */
export function presentWebhookEndpoint(e: WebhookEndpoint, secret: 'full' | 'redacted' = 'redacted') {
  return {
    id: e.id,
    url: e.url,
    // The spec types description as a string: an endpoint created without one has ''.
    description: e.description ?? '',
    active: e.active,
    event_types: e.eventTypes,
    retries_to_attempt: e.retriesToAttempt,
    secret: secret === 'full' ? e.secret : redactSecret(e.secret),
    last_response_code: e.lastResponseCode,
    last_sent_at: iso(e.lastSentAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

/** Stored statuses by the names of the spec's delivery status table. */
const STATUS = { pending: 'pending', succeeded: 'successful', failed: 'failed', cancelled: 'cancelled' } as const;

/** The spec's Webhook delivery item, plus its `status` (beyond the spec, docs/webhooks.md). */
export function presentWebhookDelivery(d: WebhookDelivery) {
  return {
    id: d.id,
    event_type: d.eventType,
    event_data: d.eventData,
    status: STATUS[d.status],
    attempt_number: d.attemptNumber,
    response_status: d.responseStatus,
    response_body: d.responseBody,
    error_message: d.errorMessage,
    first_attempt_at: iso(d.firstAttemptAt),
    last_attempt_at: iso(d.lastAttemptAt),
    next_retry_at: iso(d.nextRetryAt),
    successfully_delivered_at: iso(d.successfullyDeliveredAt),
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
