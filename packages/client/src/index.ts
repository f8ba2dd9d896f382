export * from './client';
export * from './errors';
export { ROUTES, toQueryString, type ClientOperationId, type OperationId, type RequestBody, type SuccessBody } from './http';
export type { components, operations, paths, webhooks } from './generated/openapi';
// The receiver side of webhooks: the one verifier, from the domain package (spec "Signature").
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  EVENT_TYPES,
  verifyWebhook,
  WEBHOOK_HEADERS,
  type AttemptExhaustedEventData,
  type BroadcastEventData,
  type EmailEventData,
  type EventType,
  type SubscriberEventData,
  type VerifyWebhookOptions,
  type VerifyWebhookResult,
  type WebhookEnvelope,
} from '@mailcast/domain';
