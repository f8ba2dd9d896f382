import { BROADCAST_STATUSES, HUMAN_TIMELINE_METRICS, TIMEFRAMES, TIMELINE_METRICS } from '@mailcast/domain';
import { broadcastSchema, scheduleSchema } from '../http/broadcasts/broadcasts.schemas';
import {
  createFieldsSchema,
  customDataModeSchema,
  doubleOptInOptionsSchema,
  doubleOptInSchema,
  emailBodySchema,
  tagsBodySchema,
  updateFieldsSchema,
} from '../http/subscribers/subscribers.schemas';
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
  requestSchema,
  string,
  warned,
  ref,
  type Schema,
} from './schema-helpers';
import { DISCOVERY_SCHEMAS } from './discovery.schemas';
import { CHANNEL_SETTINGS_SCHEMAS } from './channel-settings.schemas';
import { EXPORT_SCHEMAS } from './export.schemas';
import { EMAIL_SERVER_SCHEMAS } from './email-servers.schemas';
import { PREVIEW_SCHEMAS } from './preview.schemas';
import { SEGMENT_SCHEMAS } from './segments.schemas';
import { SEQUENCE_SCHEMAS } from './sequences.schemas';
import { OPT_IN_FORM_SCHEMAS } from './opt-in-forms.schemas';
import { SUPPRESSION_SCHEMAS } from './suppressions.schemas';
import { SUBSCRIBER_HISTORY_SCHEMAS } from './subscriber-history.schemas';
import { SUBJECT_TEST_SCHEMAS } from './subject-tests.schemas';
import { TEMPLATE_SCHEMAS } from './templates.schemas';
import { TRANSACTIONAL_SCHEMAS } from './transactionals.schemas';
import { TOPIC_SCHEMAS } from './topics.schemas';
import { USER_SCHEMAS } from './users.schemas';
import { AUDIT_LOG_SCHEMAS } from './audit-log.schemas';
import { WEBHOOK_SCHEMAS } from './webhooks.schemas';

// Importers keep importing these from here; the helpers live in schema-helpers.ts, each wider-API
// area's schemas in <area>.schemas.ts (spread into SCHEMAS below).
export { nestedOrFlat, ref, type Schema } from './schema-helpers';

const emailHeader: Schema = closed({ key: string('Header name.'), value: string('Header value.') }, 'A custom email header.');

const broadcastInput = requestSchema(broadcastSchema);

// The create body's parameters beside the subscriber (double_opt_in, confirmation_template_id).
const doubleOptInProperties = requestSchema(doubleOptInSchema).properties as Record<string, Schema>;
const CUSTOM_DATA_MODE: Schema = requestSchema(customDataModeSchema);

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
  Broadcast: warned(
    closed({
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
      topic_id: { type: ['integer', 'null'], description: 'Only subscribers who receive this topic get the broadcast; null: no topic.' },
      excluded_segment_ids: arrayOf(integer(), 'Members of these segments are left out.'),
      template_id: { type: ['integer', 'null'], description: 'The template the broadcast was written from.' },
      email_server_ids: arrayOf(integer()),
      use_any_email_server: boolean('Echoed input field.'),
      email_headers: arrayOf(ref('EmailHeader'), 'Echoed input field.'),
      archive: boolean('Published in the public archive once sent (docs/archive.md).'),
      send_in_subscriber_timezone: boolean("Sent at the schedule's wall-clock time in each subscriber's zone (docs/broadcasts-and-sending.md)."),
      pause_reason: {
        type: ['string', 'null'],
        enum: ['hard_bounce_rate', 'complaint_rate', null],
        description: 'Why the reputation guard paused the broadcast (docs/reputation-guard.md); null otherwise and after resume.',
      },
      ab_test: { oneOf: [ref('SubjectTest'), { type: 'null' }], description: 'The subject test (docs/subject-tests.md); null: none.' },
    }),
  ),
  BroadcastInput: broadcastInput,
  BroadcastCreateInput: {
    ...broadcastInput,
    description: 'Needs a subject, given here or by the template of template_id (without one: 422 "Subject can\'t be blank").',
    // Without a template_id, a subject is required: the use case's check, a JSON Schema
    // condition the client types ignore.
    if: { properties: { template_id: { type: 'integer' } }, required: ['template_id'] },
    else: { properties: { subject: { type: 'string' } }, required: ['subject'] },
  },
  BroadcastCreateBody: nestedOrFlat('broadcast', 'BroadcastCreateInput'),
  BroadcastUpdateBody: nestedOrFlat('broadcast', 'BroadcastInput'),
  BroadcastList: page('Broadcast'),
  BroadcastCreated: warned(closed({ id: integer() })),
  BroadcastAction: closed({ id: integer(), message: string(), status: ref('BroadcastStatus') }),
  ScheduleInput: requestSchema(scheduleSchema),
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
      // Recipients with at least one open or click not flagged as a machine (docs/engagement.md).
      human_opens: ref('CountAndRate'),
      human_clicks: ref('CountAndRate'),
    }),
    issues: closed({
      bounces: ref('CountAndRate'),
      complaints: ref('CountAndRate'),
      unsubscribes: ref('CountAndRate'),
    }),
    ab_test: { oneOf: [ref('SubjectTestStatistics'), { type: 'null' }], description: 'The subject test (docs/subject-tests.md); null: none.' },
  }),
  TimelineMetric: { type: 'string', enum: [...TIMELINE_METRICS, ...HUMAN_TIMELINE_METRICS] },
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
    human_clicks: integer('Distinct recipients with a click of this link not flagged as a machine.'),
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

  Subscriber: warned(
    closed({
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
      topics: ref('SubscriberTopics'),
    }),
  ),
  Pagination: closed({
    total: integer(),
    count: integer('Subscribers on this page.'),
    from: integer('Position of the first subscriber of this page (1-based).'),
    to: integer('Position of the last subscriber of this page.'),
    current: integer('This page number.'),
    total_pages: integer(),
  }),
  SubscriberList: warned(
    closed({
      broadcast_channel_id: integer(),
      subscribers: arrayOf(ref('Subscriber')),
      pagination: ref('Pagination'),
    }),
  ),
  SubscriberCreateInput: requestSchema(createFieldsSchema),
  SubscriberUpdateInput: requestSchema(updateFieldsSchema),
  DoubleOptInOptions: requestSchema(doubleOptInOptionsSchema),
  SubscriberCreateBody: nestedOrFlat('subscriber', 'SubscriberCreateInput', doubleOptInProperties),
  SubscriberUpdateBody: {
    description: 'Nested under `subscriber` (canonical), or flat. The target is the top-level `email` when present, else `subscriber[email]`.',
    anyOf: [
      {
        type: 'object',
        title: 'Nested under subscriber',
        properties: {
          email: string('Identifies the subscriber (takes precedence).'),
          custom_data_mode: CUSTOM_DATA_MODE,
          subscriber: ref('SubscriberUpdateInput'),
        },
        required: ['subscriber'],
      },
      { type: 'object', title: 'Flat', allOf: [ref('SubscriberUpdateInput')], properties: { custom_data_mode: CUSTOM_DATA_MODE }, required: ['email'] },
    ],
  },
  DoubleOptInResult: warned(
    closed(
      {
        id: integer(),
        email: string(),
        first_name: nullableString(),
        confirmed_at: { type: 'null' },
        confirmation_status: { const: 'pending' },
        confirmation_url: { type: 'string', format: 'uri', description: 'The public confirmation page.' },
      },
      'A double opt-in create that sent a confirmation email.',
    ),
  ),
  EmailBody: requestSchema(emailBodySchema),
  TagsBody: requestSchema(tagsBodySchema),

  ...WEBHOOK_SCHEMAS,

  Health: closed({ status: { const: 'ok' } }),
  Readiness: closed({
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: closed({ database: boolean('The database answers.'), migrations: boolean('No migration is pending.') }),
  }),

  ...SUPPRESSION_SCHEMAS,
  ...SUBSCRIBER_HISTORY_SCHEMAS,
  ...SUBJECT_TEST_SCHEMAS,
  ...TEMPLATE_SCHEMAS,
  ...TRANSACTIONAL_SCHEMAS,
  ...DISCOVERY_SCHEMAS,
  ...CHANNEL_SETTINGS_SCHEMAS,
  ...SEGMENT_SCHEMAS,
  ...SEQUENCE_SCHEMAS,
  ...OPT_IN_FORM_SCHEMAS,
  ...PREVIEW_SCHEMAS,
  ...EMAIL_SERVER_SCHEMAS,
  ...TOPIC_SCHEMAS,
  ...USER_SCHEMAS,
  ...AUDIT_LOG_SCHEMAS,
  ...EXPORT_SCHEMAS,
};

/** The envelope with its `type` and `data` narrowed, for the `webhooks` section. */
export function eventOf(types: readonly string[], data: Schema): Schema {
  return {
    allOf: [ref('WebhookEvent')],
    type: 'object',
    properties: { type: { type: 'string', enum: [...types] }, data },
  };
}
