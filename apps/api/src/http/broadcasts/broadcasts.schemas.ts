import { ValidationError, type BroadcastInput } from '@mailcast/core';
import { MAX_RENDERED_BODY_LENGTH, SUBJECT_TEST_LIMITS, SUBJECT_TEST_METRICS, isReservedHeader } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * The body of a create, update or schedule call: nested under `broadcast` (as the spec shows)
 * or flat at the top level (docs/api-decisions.md "Two body forms"). No body at all is an empty one.
 */
function unwrap(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('Request body must be a JSON object');
  const nested = (body as Record<string, unknown>).broadcast;
  if (nested === undefined) return body as Record<string, unknown>;
  if (nested === null || typeof nested !== 'object' || Array.isArray(nested)) {
    throw new ValidationError('broadcast must be an object');
  }
  return nested as Record<string, unknown>;
}

// RFC 5322 §3.6.8: a field name is printable ASCII except the colon. Values may not break the line.
const HEADER_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
const NO_LINE_BREAK = /^[^\r\n]*$/;

const text = () => Joi.string().allow('', null);
const ids = () => Joi.array().items(Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER));

const scheduledSendAt = () =>
  Joi.string().description('ISO 8601 time. Without an offset it is wall-clock time in scheduled_timezone; with an offset it is an absolute instant.');
const scheduledTimezone = () => Joi.string().description('IANA timezone name, e.g. Europe/Berlin.');

const { subjects, samplePercent, waitMinutes } = SUBJECT_TEST_LIMITS;
/** A subject test (docs/subject-tests.md): every field required, each problem named by its path. */
const abTestSchema = () =>
  Joi.object({
    subjects: Joi.array()
      .items(Joi.string().max(998))
      .min(subjects.min)
      .max(subjects.max)
      .required()
      .description('The subjects tested (2 to 4), each a Liquid template like subject; not blank.'),
    sample_percent: Joi.number()
      .integer()
      .min(samplePercent.min)
      .max(samplePercent.max)
      .required()
      .description('The share of the recipients, drawn at random, that tests the subjects (5 to 50), split into equal parts.'),
    metric: Joi.string()
      .valid(...SUBJECT_TEST_METRICS)
      .required()
      .description('What decides: recipients with a human open, or a human click (docs/engagement.md), as a rate over sent.'),
    wait_minutes: Joi.number()
      .integer()
      .min(waitMinutes.min)
      .max(waitMinutes.max)
      .required()
      .description('Minutes from the start of sending to the decision (1 to 1440); the rest of the list then gets the winner.'),
  })
    .allow(null)
    .description(
      'A subject test (docs/subject-tests.md): each subject goes to an equal random part of the sample; after the wait the winner (ties: the first subject) goes to the rest. null: no test. Not with send_in_subscriber_timezone.',
    );

/** The fields of a create or update body; the OpenAPI document's BroadcastInput is made from it. */
export const broadcastSchema = Joi.object({
  name: text().description('Internal name, not shown to recipients.'),
  // null passes here and is the use case's blank subject (422): the document leaves it out.
  subject: Joi.string()
    .allow('', null)
    .description('Subject line; a Liquid template (`{{ subscriber.first_name }}`). Blank: 422 "Subject can\'t be blank".')
    .meta({ 'x-openapi': { type: 'string' } }),
  preheader: text().description('Preview text.'),
  // A source over the rendered cap is refused at save (docs/security.md "Templates").
  body: text().max(MAX_RENDERED_BODY_LENGTH).description('Rich text body; a Liquid template.'),
  html_body: text().max(MAX_RENDERED_BODY_LENGTH).description('Raw HTML body; a Liquid template.'),
  include_unsubscribe_link: Joi.boolean().description('Adds a visible unsubscribe link (the List-Unsubscribe headers are always sent).'),
  reply_to: text().description('Reply-to email address.'),
  track_opens: Joi.boolean().description("Open tracking. Default: the channel's setting."),
  track_clicks: Joi.boolean().description("Click tracking. Default: the channel's setting."),
  use_any_email_server: Joi.boolean().description('Use any email server of the channel.'),
  email_headers: Joi.array()
    .items(
      Joi.object({
        key: Joi.string()
          .pattern(HEADER_NAME)
          .max(76)
          .required()
          .custom((value: string, helpers) => (isReservedHeader(value) ? helpers.error('header.reserved') : value))
          .messages({
            'string.pattern.base': '{#label} must be a header name (printable ASCII, no spaces or colons)',
            'header.reserved': '{#label} {#value} is set by Mailcast and cannot be overridden',
          })
          .description('Header name.'),
        value: Joi.string()
          .allow('')
          .pattern(NO_LINE_BREAK)
          .max(998)
          .required()
          .messages({ 'string.pattern.base': '{#label} must not contain line breaks' })
          .description('Header value.'),
      }).description('A custom email header.'),
    )
    .description('Custom headers added to every email.'),
  tags: Joi.array().items(Joi.string().min(1)),
  segment_ids: ids().description('Segments targeted; empty means every active subscriber of the channel.'),
  topic_id: Joi.number()
    .integer()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .allow(null)
    .description(
      'A topic of the channel: only subscribers who receive it get the broadcast, checked when recipients are built and again before each email is handed to SMTP. Not a topic of this channel: 422.',
    ),
  excluded_segment_ids: ids().description(
    'Segments of the channel whose members are left out (checked again before each email is handed to SMTP). Unknown, or also in segment_ids: 422.',
  ),
  template_id: Joi.number()
    .integer()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .allow(null)
    .description(
      'A broadcast template of the channel: its subject, preheader, body and html_body fill the fields not given here (copied when the broadcast is written). Unknown: 422.',
    ),
  email_server_ids: ids().description('Email servers to send through.'),
  scheduled_send_at: scheduledSendAt().allow(null),
  scheduled_timezone: scheduledTimezone().allow(null),
  archive: Joi.boolean()
    .description(
      "Publishes the broadcast in the channel's public archive (`/archive/<channel slug>`) once it is sent, without personal data or tracking (docs/archive.md). May be changed in any status, also alone on a sent broadcast.",
    )
    .meta({ 'x-openapi': { default: false } }),
  send_in_subscriber_timezone: Joi.boolean().description(
    "Send at scheduled_send_at's wall-clock time in each subscriber's `custom_data.timezone` (IANA; absent or invalid: scheduled_timezone), all within 26 hours (docs/broadcasts-and-sending.md).",
  ),
  ab_test: abTestSchema(),
})
  // Fields the service owns (id, status, counters) and unknown ones are ignored, as read-back
  // objects are often sent back whole.
  .unknown(true)
  .prefs({ abortEarly: false, convert: false, errors: { wrap: { label: false } } });

/** What a create or update body may carry; anything else is answered with a warning. */
export const BROADCAST_BODY: BodyShape = { key: 'broadcast', fields: keysOf(broadcastSchema) };

function validate(schema: Joi.ObjectSchema, value: Record<string, unknown>): Record<string, unknown> {
  const { error, value: valid } = schema.validate(value);
  if (error) throw new ValidationError(error.details.map((d) => d.message).join(', '));
  return valid as Record<string, unknown>;
}

type Body = Record<string, unknown>;
const pick = <T>(body: Body, key: string) => body[key] as T | undefined;

/** Create and update bodies (spec: Create / update body parameters) as the use case's input. */
export function broadcastInput(rawBody: unknown): BroadcastInput {
  const body = validate(broadcastSchema, unwrap(rawBody));
  const input: BroadcastInput = {
    name: pick(body, 'name'),
    subject: pick(body, 'subject'),
    preheader: pick(body, 'preheader'),
    body: pick(body, 'body'),
    htmlBody: pick(body, 'html_body'),
    includeUnsubscribeLink: pick(body, 'include_unsubscribe_link'),
    replyTo: pick(body, 'reply_to'),
    trackOpens: pick(body, 'track_opens'),
    trackClicks: pick(body, 'track_clicks'),
    useAnyEmailServer: pick(body, 'use_any_email_server'),
    emailHeaders: pick(body, 'email_headers'),
    tags: pick(body, 'tags'),
    segmentIds: pick(body, 'segment_ids'),
    topicId: pick(body, 'topic_id'),
    excludedSegmentIds: pick(body, 'excluded_segment_ids'),
    templateId: pick(body, 'template_id'),
    emailServerIds: pick(body, 'email_server_ids'),
    scheduledSendAt: pick(body, 'scheduled_send_at'),
    scheduledTimezone: pick(body, 'scheduled_timezone'),
    archive: pick(body, 'archive'),
    sendInSubscriberTimezone: pick(body, 'send_in_subscriber_timezone'),
    abTest: pick(body, 'ab_test'),
  };
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as BroadcastInput;
}

/** The fields of a schedule_broadcast body (the document's ScheduleInput). */
export const scheduleSchema = Joi.object({
  scheduled_send_at: scheduledSendAt(),
  scheduled_timezone: scheduledTimezone(),
  send_in_subscriber_timezone: Joi.boolean().description(
    "Send at scheduled_send_at's wall-clock time in each subscriber's `custom_data.timezone` (IANA; absent or invalid: scheduled_timezone), all within 26 hours (docs/broadcasts-and-sending.md).",
  ),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false, errors: { wrap: { label: false } } });

/** schedule_broadcast: both fields optional here (the confirm form sends neither). */
export function scheduleInput(rawBody: unknown): { scheduledSendAt?: string; scheduledTimezone?: string; sendInSubscriberTimezone?: boolean } {
  const body = validate(scheduleSchema, unwrap(rawBody));
  const input: { scheduledSendAt?: string; scheduledTimezone?: string; sendInSubscriberTimezone?: boolean } = {};
  const byZone = pick<boolean>(body, 'send_in_subscriber_timezone');
  if (byZone !== undefined) input.sendInSubscriberTimezone = byZone;
  const at = pick<string>(body, 'scheduled_send_at');
  const timezone = pick<string>(body, 'scheduled_timezone');
  if (at !== undefined) input.scheduledSendAt = at;
  if (timezone !== undefined) input.scheduledTimezone = timezone;
  return input;
}
