import {
  BROADCAST_STATUSES,
  DEFAULT_RETRIES_TO_ATTEMPT,
  EVENT_TYPES,
  MAX_RETRIES_TO_ATTEMPT,
  PERMISSIONS,
  SEGMENT_FIELDS,
  SEGMENT_OPERATORS,
  TIMEFRAMES,
  TIMELINE_METRICS,
} from '@mailcast/domain';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type Schema = { [keyword: string]: unknown };

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

// Response objects are closed (additionalProperties: false) and list every field as required:
// the agreement test then fails on a field the API adds, drops or renames without the document.
function closed(properties: Record<string, Schema>, description?: string): Schema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/**
 * A create or update answer: the resource, and `warnings` when the body carried attributes the
 * API does not take (docs/discovery.md, Warnings). Optional, so the same schema serves reads.
 */
function warned(schema: Schema): Schema {
  return { ...schema, properties: { ...(schema.properties as Record<string, Schema>), warnings: { $ref: '#/components/schemas/Warnings' } } };
}

const string = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
const nullableString = (description?: string): Schema => ({ type: ['string', 'null'], ...(description ? { description } : {}) });
const integer = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
const number = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
const boolean = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
const dateTime = (description?: string): Schema => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
const nullableDateTime = (description?: string): Schema => ({
  type: ['string', 'null'],
  format: 'date-time',
  ...(description ? { description } : {}),
});
const arrayOf = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const freeObject = (description: string): Schema => ({ type: 'object', additionalProperties: true, description });

/** A list page of the broadcast, webhook endpoint and delivery lists (docs/api-decisions.md Lists). */
const page = (item: string): Schema =>
  closed({ data: arrayOf(ref(item)), total: integer('Number of items in the whole list, before limit and offset.') });

/**
 * docs/api-decisions.md "Compatibility": bodies arrive nested under the resource key (canonical, as the
 * spec shows) or flat at the top level. `anyOf`, not `oneOf`: a nested body of optional fields
 * would also satisfy the open flat form.
 */
export function nestedOrFlat(key: string, input: string, extra: Record<string, Schema> = {}): Schema {
  return {
    description: `The fields nested under \`${key}\` (canonical), or the same fields flat at the top level (accepted for compatibility).`,
    anyOf: [
      {
        type: 'object',
        title: `Nested under ${key}`,
        properties: { [key]: ref(input), ...extra },
        required: [key],
      },
      { type: 'object', title: 'Flat', allOf: [ref(input)], ...(Object.keys(extra).length > 0 ? { properties: extra } : {}) },
    ],
  };
}

const emailHeader: Schema = closed({ key: string('Header name.'), value: string('Header value.') }, 'A custom email header.');

const broadcastInputProperties: Record<string, Schema> = {
  subject: string('Subject line; a Liquid template (`{{ subscriber.first_name }}`). Blank: 422 "Subject can\'t be blank".'),
  body: string('Rich text body; a Liquid template.'),
  html_body: string('Raw HTML body; a Liquid template.'),
  name: string('Internal name, not shown to recipients.'),
  preheader: string('Preview text.'),
  reply_to: string('Reply-to email address.'),
  track_opens: boolean("Open tracking. Default: the channel's setting."),
  track_clicks: boolean("Click tracking. Default: the channel's setting."),
  include_unsubscribe_link: boolean('Adds a visible unsubscribe link (the List-Unsubscribe headers are always sent).'),
  segment_ids: arrayOf(integer(), 'Segments targeted; empty means every active subscriber of the channel.'),
  email_server_ids: arrayOf(integer(), 'Email servers to send through.'),
  use_any_email_server: boolean('Use any email server of the channel.'),
  scheduled_send_at: string(
    'ISO 8601 time. Without an offset it is wall-clock time in scheduled_timezone; with an offset it is an absolute instant.',
  ),
  scheduled_timezone: string('IANA timezone name, e.g. Europe/Berlin.'),
  email_headers: arrayOf(emailHeader, 'Custom headers added to every email.'),
};

const subscriberFields: Record<string, Schema> = {
  first_name: string(),
  last_name: string(),
  ip_address: string('IP address captured at signup.'),
  source: string('How the subscriber was added, e.g. api_subscription, import, form.'),
  tags: arrayOf(string()),
  custom_data: freeObject('Arbitrary key-value JSON.'),
};

const doubleOptInOptions: Schema = {
  type: 'object',
  description: 'Options of the confirmation email.',
  properties: {
    reply_to: string('Reply-to of the confirmation email.'),
    confirmation_template_id: integer("Confirmation template; default: the channel's default template."),
    include_unsubscribe_link: { type: 'boolean', default: true },
  },
};

const doubleOptInProperties: Record<string, Schema> = {
  double_opt_in: {
    description:
      'Double opt-in: `true`, or an object of options. A confirmation email is sent; the subscriber receives no broadcast until confirmed.',
    anyOf: [{ type: 'boolean' }, ref('DoubleOptInOptions')],
  },
  confirmation_template_id: integer('Confirmation template (may also be given inside double_opt_in).'),
};

const webhookEndpointInputProperties: Record<string, Schema> = {
  url: { type: 'string', format: 'uri', description: 'HTTPS URL receiving the payloads; loopback, private and metadata addresses are refused.' },
  description: string(),
  event_types: arrayOf(ref('EventType'), 'Subscribed event types.'),
  retries_to_attempt: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_RETRIES_TO_ATTEMPT,
    default: DEFAULT_RETRIES_TO_ATTEMPT,
  },
  active: { type: 'boolean', default: true },
};

const segmentProperties: Record<string, Schema> = {
  id: integer(),
  name: string(),
  description: nullableString(),
  match: { type: 'string', enum: ['all', 'any'], description: 'all: every rule holds; any: at least one. No rules: every subscriber.' },
  rules: arrayOf(ref('SegmentRule')),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const segmentInputProperties: Record<string, Schema> = {
  name: string(),
  description: nullableString(),
  match: { type: 'string', enum: ['all', 'any'], default: 'all' },
  rules: arrayOf(ref('SegmentRule'), 'At most 100.'),
};

const countAndRate: Schema = closed({ count: integer(), rate: number('Percent, 0 to 100, two decimals.') });

export const SCHEMAS: Record<string, Schema> = {
  Error: closed({ error: string('What went wrong.') }, 'Most failures: `{"error": "..."}`.'),
  FieldErrors: closed(
    {
      errors: {
        type: 'object',
        description: 'Messages per field, e.g. `{"email": ["is invalid"]}`.',
        additionalProperties: arrayOf(string()),
      },
    },
    'Field validation failures (subscriber create and update).',
  ),
  Message: closed({ message: string() }),

  BroadcastStatus: { type: 'string', enum: [...BROADCAST_STATUSES] },
  EmailHeader: emailHeader,
  Broadcast: warned(closed({
    id: integer(),
    name: nullableString('Internal name.'),
    subject: string(),
    preheader: nullableString(),
    body: nullableString('Rich text body.'),
    html_body: nullableString('Raw HTML body; null when not used.'),
    include_unsubscribe_link: boolean(),
    reply_to: nullableString(),
    status: ref('BroadcastStatus'),
    track_opens: boolean(),
    track_clicks: boolean(),
    total_recipients: integer(),
    broadcast_recipients_count: integer('Recipient records processed so far.'),
    percentage_complete: number('0 to 100.'),
    scheduled_send_at: nullableDateTime('UTC instant.'),
    scheduled_timezone: nullableString('IANA timezone name.'),
    sent_at: nullableDateTime(),
    created_at: dateTime(),
    updated_at: dateTime(),
    tags: arrayOf(string()),
    segment_ids: arrayOf(integer()),
    email_server_ids: arrayOf(integer()),
    use_any_email_server: boolean('Echoed input field.'),
    email_headers: arrayOf(ref('EmailHeader'), 'Echoed input field.'),
  })),
  BroadcastInput: { type: 'object', properties: broadcastInputProperties },
  BroadcastCreateInput: { type: 'object', properties: broadcastInputProperties, required: ['subject'] },
  BroadcastCreateBody: nestedOrFlat('broadcast', 'BroadcastCreateInput'),
  BroadcastUpdateBody: nestedOrFlat('broadcast', 'BroadcastInput'),
  BroadcastList: page('Broadcast'),
  BroadcastCreated: warned(closed({ id: integer() })),
  BroadcastAction: closed({ id: integer(), message: string(), status: ref('BroadcastStatus') }),
  ScheduleInput: {
    type: 'object',
    properties: {
      scheduled_send_at: broadcastInputProperties.scheduled_send_at!,
      scheduled_timezone: broadcastInputProperties.scheduled_timezone!,
    },
  },
  ScheduleBody: nestedOrFlat('broadcast', 'ScheduleInput'),
  BroadcastScheduled: closed({
    id: integer(),
    message: string(),
    status: ref('BroadcastStatus'),
    scheduled_send_at: dateTime('UTC instant.'),
    scheduled_timezone: string(),
  }),

  CountAndRate: countAndRate,
  StatisticsSummary: closed({
    broadcast_id: integer(),
    broadcast_name: nullableString(),
    broadcast_subject: string(),
    status: ref('BroadcastStatus'),
    total_recipients: integer(),
    sent_at: nullableDateTime(),
    begin_send_at: nullableDateTime(),
    created_at: dateTime(),
    tracking: closed({ track_opens: boolean(), track_clicks: boolean() }),
    delivery: closed({
      sent: integer('Recipients whose email the SMTP server accepted.'),
      failed: integer('Recipients whose email failed permanently.'),
      delivery_rate: number('sent / total_recipients, percent.'),
    }),
    engagement: closed({
      opens: ref('CountAndRate'),
      clicks: ref('CountAndRate'),
      unique_links_clicked: integer(),
    }),
    issues: closed({
      bounces: ref('CountAndRate'),
      complaints: ref('CountAndRate'),
      unsubscribes: ref('CountAndRate'),
    }),
  }),
  TimelineMetric: { type: 'string', enum: [...TIMELINE_METRICS] },
  Timeline: closed({
    broadcast_id: integer(),
    timeframe: { type: 'string', enum: Object.keys(TIMEFRAMES) },
    interval: { type: 'string', enum: Object.values(TIMEFRAMES).map((t) => t.interval) },
    start_time: dateTime(),
    end_time: dateTime(),
    series: arrayOf(
      closed({
        name: ref('TimelineMetric'),
        data: {
          type: 'object',
          description: 'A key for every bucket start in the window (ISO 8601 UTC), zero where nothing happened.',
          additionalProperties: { type: 'integer' },
        },
      }),
    ),
  }),
  LinkItem: closed({
    id: integer(),
    identifier: string(),
    url: string(),
    clicks: integer('Same as total_clicks.'),
    total_clicks: integer(),
    unique_clicks: integer('Distinct recipients who clicked.'),
    click_rate: number('unique_clicks / sent, percent.'),
    first_clicked_at: nullableDateTime(),
    last_clicked_at: nullableDateTime(),
  }),
  LinkStatistics: closed({
    broadcast_id: integer(),
    total_links: integer(),
    total_clicks: integer(),
    links: arrayOf(ref('LinkItem')),
  }),

  Subscriber: warned(closed({
    id: integer(),
    email: string('Lower-cased and trimmed.'),
    first_name: nullableString(),
    last_name: nullableString(),
    ip_address: nullableString(),
    is_active: boolean(),
    source: string(),
    subscribed_at: dateTime(),
    unsubscribed_at: nullableDateTime('Null while subscribed.'),
    confirmed_at: nullableDateTime(),
    confirmation_status: { type: 'string', enum: ['confirmed', 'unconfirmed'] },
    created_at: dateTime(),
    tags: arrayOf(string()),
    custom_data: freeObject('Arbitrary key-value JSON.'),
  })),
  Pagination: closed({
    total: integer(),
    count: integer('Subscribers on this page.'),
    from: integer('Position of the first subscriber of this page (1-based).'),
    to: integer('Position of the last subscriber of this page.'),
    current: integer('This page number.'),
    total_pages: integer(),
  }),
  SubscriberList: closed({
    broadcast_channel_id: integer(),
    subscribers: arrayOf(ref('Subscriber')),
    pagination: ref('Pagination'),
  }),
  SubscriberCreateInput: {
    type: 'object',
    description: '`tag_list` is refused with 422 `{"error": "tag_list is not supported; use tags"}`.',
    properties: {
      email: { type: 'string', description: 'Required; syntactic check only.' },
      ...subscriberFields,
      source: { type: 'string', default: 'api_subscription' },
      subscribed_at: dateTime('Overrides the subscription time.'),
      is_active: { type: 'boolean', default: true, description: '`false` creates the subscriber inactive (an existing one is updated and left inactive).' },
    },
    required: ['email'],
  },
  SubscriberUpdateInput: {
    type: 'object',
    description: '`tags` and `custom_data` replace the existing values. `tag_list` is refused with 422.',
    properties: {
      email: string('Identifies the subscriber, unless a top-level `email` is given.'),
      ...subscriberFields,
    },
  },
  DoubleOptInOptions: doubleOptInOptions,
  SubscriberCreateBody: nestedOrFlat('subscriber', 'SubscriberCreateInput', doubleOptInProperties),
  SubscriberUpdateBody: {
    description:
      'Nested under `subscriber` (canonical), or flat. The target is the top-level `email` when present, else `subscriber[email]`.',
    anyOf: [
      {
        type: 'object',
        title: 'Nested under subscriber',
        properties: { email: string('Identifies the subscriber (takes precedence).'), subscriber: ref('SubscriberUpdateInput') },
        required: ['subscriber'],
      },
      { type: 'object', title: 'Flat', allOf: [ref('SubscriberUpdateInput')], required: ['email'] },
    ],
  },
  DoubleOptInResult: warned(closed(
    {
      id: integer(),
      email: string(),
      first_name: nullableString(),
      confirmed_at: { type: 'null' },
      confirmation_status: { const: 'pending' },
      confirmation_url: { type: 'string', format: 'uri', description: 'The public confirmation page.' },
    },
    'A double opt-in create that sent a confirmation email.',
  )),
  EmailBody: { type: 'object', properties: { email: string('The subscriber, by address (case-insensitive).') }, required: ['email'] },
  TagsBody: {
    type: 'object',
    properties: { email: string('The subscriber, by address (case-insensitive).'), tags: arrayOf(string()) },
    required: ['email', 'tags'],
  },

  EventType: { type: 'string', enum: [...EVENT_TYPES] },
  WebhookEndpoint: warned(closed({
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
  })),
  WebhookEndpointList: page('WebhookEndpoint'),
  WebhookEndpointCreateInput: {
    type: 'object',
    properties: webhookEndpointInputProperties,
    required: ['url', 'event_types'],
  },
  WebhookEndpointUpdateInput: { type: 'object', properties: webhookEndpointInputProperties },
  WebhookEndpointCreateBody: nestedOrFlat('webhook_endpoint', 'WebhookEndpointCreateInput'),
  WebhookEndpointUpdateBody: nestedOrFlat('webhook_endpoint', 'WebhookEndpointUpdateInput'),
  WebhookTestBody: {
    type: 'object',
    properties: {
      event_type: {
        allOf: [ref('EventType')],
        default: 'test.webhook',
        description: '`test.webhook`, or a type the endpoint subscribes to (else 422).',
      },
    },
  },
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
  BroadcastEventData: closed({
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

  Health: closed({ status: { const: 'ok' } }),
  Readiness: closed({
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: closed({ database: boolean('The database answers.'), migrations: boolean('No migration is pending.') }),
  }),
  WhoAmI: closed({
    type: { const: 'api_token' },
    token_type: { const: 'channel', description: 'Every token belongs to one channel.' },
    token: closed({ id: integer(), permissions: arrayOf({ type: 'string', enum: [...PERMISSIONS] }) }),
    channel: closed({ id: integer(), name: string() }),
  }),
  ChannelStatus: closed({
    status: { const: 'ok' },
    channel: closed({ id: integer(), name: string() }),
    email_servers: integer('How many email servers the channel has.'),
    ready: boolean('The channel has an active email server, so a broadcast can be sent.'),
  }),
  Warnings: arrayOf(
    closed({
      code: { const: 'unrecognized_parameter' },
      param: string('The attribute, as the body named it.'),
      message: string(),
    }),
    'Attributes of the body the API does not take: the request succeeded and they were ignored. Present only when there are some.',
  ),
  SegmentRule: {
    type: 'object',
    description: `One condition. \`field\`: ${SEGMENT_FIELDS.join(', ')}. Text fields take equals, not_equals, contains, starts_with, ends_with (case-insensitive), exists, not_exists; tags: includes, excludes, exists, not_exists; custom_data.<key>: equals, not_equals, contains, starts_with, ends_with, gt, lt (numbers), exists, not_exists; created_at and subscribed_at: before, after (ISO 8601); confirmation_status: equals, not_equals (confirmed or unconfirmed); is_active: equals, not_equals (boolean); opened_broadcast and clicked_broadcast: equals (did) or not_equals (did not), value a broadcast id or "any", with optional within_days.`,
    properties: {
      field: string('A subscriber field, `custom_data.<key>`, or an engagement field.'),
      operator: { type: 'string', enum: [...SEGMENT_OPERATORS] },
      value: { description: 'Absent for exists and not_exists.', type: ['string', 'number', 'boolean'] },
      within_days: integer('Engagement rules only: within this many days before evaluation.'),
    },
    required: ['field', 'operator'],
    additionalProperties: false,
  },
  Segment: warned(closed(segmentProperties)),
  SegmentList: page('Segment'),
  SegmentWithMembers: closed({
    ...segmentProperties,
    subscribers_count: integer('Members now.'),
    subscribers: arrayOf(ref('Subscriber'), 'The asked page of members.'),
    pagination: ref('Pagination'),
  }),
  SegmentInput: { type: 'object', properties: segmentInputProperties },
  SegmentCreateInput: { type: 'object', properties: segmentInputProperties, required: ['name'] },
  SegmentCreateBody: nestedOrFlat('segment', 'SegmentCreateInput'),
  SegmentUpdateBody: nestedOrFlat('segment', 'SegmentInput'),
};

/** The envelope with its `type` and `data` narrowed, for the `webhooks` section. */
export function eventOf(types: readonly string[], data: Schema): Schema {
  return {
    allOf: [ref('WebhookEvent')],
    type: 'object',
    properties: { type: { type: 'string', enum: [...types] }, data },
  };
}
