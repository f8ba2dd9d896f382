// The client's public API (a published SDK, so every name is kept), by area.

// The client and the shapes it takes and answers.
export {
  MailcastClient,
  type Broadcast,
  type BroadcastCreateInput,
  type BroadcastInput,
  type BroadcastStatus,
  type ChannelStatus,
  type ChannelDesign,
  type Prime,
  type DoubleOptInOptions,
  type DoubleOptInResult,
  type EmailServer,
  type EmailServerCreateInput,
  type EmailServerUpdateInput,
  type LinkStatistics,
  type MailcastClientOptions,
  type Page,
  type ScheduleInput,
  type Schemas,
  type Segment,
  type SegmentCreateInput,
  type TopicInput,
  type SegmentInput,
  type SegmentRule,
  type SegmentWithMembers,
  type OptInForm,
  type OptInFormAnalytics,
  type OptInFormInput,
  type Sequence,
  type SequenceInput,
  type SequenceStep,
  type SequenceStepInput,
  type SequenceSubscriberInput,
  type SequenceWithSteps,
  type SubscriberSequence,
  type StatisticsSummary,
  type Subscriber,
  type SubscriberCreateInput,
  type SubscriberFilters,
  type SubscriberUpdateInput,
  type Template,
  type TemplateInput,
  type Timeline,
  type TimelineMetric,
  type TransactionalInput,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointCreateInput,
  type WebhookEndpointUpdateInput,
  type WhoAmI,
} from './client';

// Errors it throws.
export { MailcastError, type FieldErrors, type RateLimitInfo } from './errors';

// Routes and request/response types, by operation.
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
