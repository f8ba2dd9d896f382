import { EVENT_TYPES, MAX_RETRIES_TO_ATTEMPT } from '@mailcast/domain';
import { endpointSchema, testSchema } from '../http/webhook-endpoints/webhook-endpoints.schemas';
import {
  arrayOf,
  boolean,
  closed,
  dateTime,
  freeObject,
  integer,
  nestedOrFlat,
  nullableDateTime,
  nullableString,
  number,
  page,
  ref,
  requestSchema,
  string,
  warned,
  type Schema,
} from './schema-helpers';

const endpointInput = requestSchema(endpointSchema);

/** Webhook endpoints, deliveries and the event payloads they carry. Spread into SCHEMAS by schemas.ts. */
export const WEBHOOK_SCHEMAS: Record<string, Schema> = {
  EventType: { type: 'string', enum: [...EVENT_TYPES] },
  WebhookEndpoint: warned(
    closed({
      id: integer(),
      url: string(),
      description: nullableString(),
      active: boolean(),
      event_types: arrayOf(ref('EventType')),
      retries_to_attempt: { type: 'integer', minimum: 0, maximum: MAX_RETRIES_TO_ATTEMPT },
      secret: string('`whsec_` + Base64 of 32 random bytes in the creation response; elsewhere redacted: `whsec_`, `*` characters, the last four characters.'),
      last_response_code: { type: ['integer', 'null'], description: 'HTTP status of the most recent delivery.' },
      last_sent_at: nullableDateTime(),
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  ),
  WebhookEndpointList: page('WebhookEndpoint'),
  // Required on create by the use case ("can't be blank"), not by joi: update shares the fields.
  WebhookEndpointCreateInput: { ...endpointInput, required: ['url', 'event_types'] },
  WebhookEndpointUpdateInput: endpointInput,
  WebhookEndpointCreateBody: nestedOrFlat('webhook_endpoint', 'WebhookEndpointCreateInput'),
  WebhookEndpointUpdateBody: nestedOrFlat('webhook_endpoint', 'WebhookEndpointUpdateInput'),
  WebhookTestBody: requestSchema(testSchema),
  WebhookTestResult: closed({ message: string(), event_type: ref('EventType'), delivery_id: integer() }),
  WebhookDelivery: closed({
    id: integer(),
    event_type: ref('EventType'),
    event_data: freeObject('The `data` of the event payload.'),
    status: {
      type: 'string',
      enum: ['pending', 'successful', 'failed', 'cancelled'],
      description: 'Spec: Webhook delivery status (cancelled: its endpoint was deleted or deactivated).',
    },
    attempt_number: integer('Attempts made so far.'),
    response_status: { type: ['integer', 'null'], description: 'HTTP status of the last attempt; null before any answer.' },
    response_body: nullableString('At most 4,096 characters of the last answer.'),
    error_message: nullableString(),
    first_attempt_at: nullableDateTime(),
    last_attempt_at: nullableDateTime(),
    next_retry_at: nullableDateTime('Set while a retry is pending.'),
    successfully_delivered_at: nullableDateTime(),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  WebhookDeliveryList: page('WebhookDelivery'),

  SubscriberEventData: closed({
    subscriber_id: integer(),
    email: string(),
    first_name: nullableString(),
    last_name: nullableString(),
    subscribed_at: dateTime(),
    unsubscribed_at: nullableDateTime(),
    is_active: boolean(),
    custom_data: freeObject('Arbitrary key-value JSON.'),
    source: string(),
  }),
  EmailEventData: closed({
    receipt_id: integer(),
    email: string(),
    identifier: string('Message identifier.'),
    receipted_type: { type: 'string', enum: ['Broadcast', 'SequenceStep', 'TransactionalEmail'] },
    receipted_id: integer(),
    delivered: boolean(),
    opened: boolean(),
    clicked: boolean(),
    bounced: boolean(),
    complaint: boolean(),
    unsubscribed: boolean(),
    opened_at: nullableDateTime(),
    clicked_at: nullableDateTime(),
    bounced_reason: nullableString(),
    complaint_reason: nullableString(),
  }),
  BroadcastEventData: guardFigures(
    closed({
      broadcast_id: integer(),
      name: nullableString(),
      subject: string(),
      status: ref('BroadcastStatus'),
      total_recipients: integer(),
      broadcast_recipients_count: integer(),
      percentage_complete: number(),
      sent_at: nullableDateTime(),
      scheduled_send_at: nullableDateTime(),
      created_at: dateTime(),
      updated_at: dateTime(),
      broadcast_channel_id: integer(),
      segment_ids: arrayOf(integer()),
      tags: arrayOf(string()),
    }),
  ),
  // docs/subscribers.md, "Purge": `error` only on subscribers.purge_failed.
  SubscribersPurgeEventData: {
    type: 'object',
    properties: {
      broadcast_channel_id: integer(),
      count: integer('Subscribers deleted (by a failed purge: before it stopped; they stay deleted).'),
      error: string('subscribers.purge_failed only: why the purge stopped.'),
    },
    required: ['broadcast_channel_id', 'count'],
    additionalProperties: false,
  },
  AttemptExhaustedEventData: closed({
    delivery_id: integer(),
    webhook_endpoint_id: integer(),
    attempts: integer(),
    last_error: string(),
    first_attempted_at: dateTime(),
    last_attempted_at: dateTime(),
    original_event_type: ref('EventType'),
  }),
  WebhookEvent: closed(
    {
      id: integer('Unique event id; receivers deduplicate by it.'),
      type: ref('EventType'),
      created_at: dateTime(),
      data: { type: 'object', description: 'Depends on the type: see the webhooks of this document.' },
    },
    'The envelope of every delivery.',
  ),
};

/**
 * A `broadcast.paused` the reputation guard emitted also carries its figures (docs/reputation-guard.md);
 * optional, since no other broadcast event has them.
 */
function guardFigures(schema: Schema): Schema {
  const guard = 'broadcast.paused by the reputation guard only: ';
  return {
    ...schema,
    properties: {
      ...(schema.properties as Record<string, Schema>),
      reason: { type: 'string', enum: ['hard_bounce_rate', 'complaint_rate'], description: `${guard}the limit crossed.` },
      sent: integer(`${guard}emails handed to SMTP servers.`),
      hard_bounces: integer(`${guard}hard bounces.`),
      complaints: integer(`${guard}complaints.`),
      hard_bounce_rate: number(`${guard}hard bounces / sent × 100, two decimals.`),
      complaint_rate: number(`${guard}complaints / sent × 100, two decimals.`),
      limit: number(`${guard}the limit crossed, in percent.`),
    },
  };
}
