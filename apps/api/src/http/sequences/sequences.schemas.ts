import { ValidationError, type AddSequenceSubscriberInput, type SequenceChanges, type StepInput } from '@mailcast/core';
import { CONDITION_SETTINGS, ENROLMENT_STATUSES, HTTP_METHODS, MAX_STEP_DELAY_SECONDS, STEP_ACTIONS, type EnrolmentStatus } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of the sequence routes, flat or under `sequence` / `step` / `subscriber`
 * (docs/api-decisions.md). Types are checked here; what they mean together is the use cases'.
 */
const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);
const ids = Joi.array().items(id).max(1_000);
const text = (max: number) => Joi.string().max(max);

/** The API's fields of a sequence (create and update). */
export const sequenceFields = Joi.object({
  label: text(255).allow('').description('Default "Untitled sequence".'),
  name: text(255).allow('').description('Alias of label.'),
  active: Joi.boolean().description('Default false.'),
  track_opens: Joi.boolean().description('Default true.'),
  track_clicks: Joi.boolean().description('Default true.'),
  use_any_email_server: Joi.boolean().description('Default true.'),
  email_server_ids: ids.description('Servers of this channel; not empty when use_any_email_server is false.'),
  init_tag: text(255).allow('', null),
  init_segment_id: id.allow(null).description('A segment of this channel, not also excluded.'),
  topic_id: id.allow(null).description('A topic of this channel: email steps skip subscribers who do not receive it.'),
  excluded_segment_ids: ids.description('Segments of this channel.'),
  parent_sequence_id: id.allow(null).description('Another sequence of this channel.'),
});

/** A field of one action: its type is the domain's to check (docs/sequences.md, Steps), so joi passes it on and the document says it. */
const actionField = (schema: Record<string, unknown>, description: string) => Joi.any().description(description).meta({ 'x-openapi': schema });
const nullable = (type: string) => ({ type: [type, 'null'] });

/** The API's fields of a step (create and update). */
export const stepFields = Joi.object({
  action: actionField(
    { type: 'string', enum: STEP_ACTIONS.filter((a) => a !== 'entry_point' && a !== 'condition_branch'), default: 'send_email' },
    'Create only.',
  ),
  label: text(255).allow('', null),
  parent_id: id.description('Create only: default the end of the main line (first children, true branches).'),
  subject: actionField(nullable('string'), 'send_email: required unless template_id; Liquid.'),
  preheader: actionField(nullable('string'), 'send_email.'),
  body: actionField(nullable('string'), 'send_email: the text body; make_http_request: the request body (Liquid; default: the subscriber as JSON).'),
  html_body: actionField(nullable('string'), 'send_email.'),
  template_id: actionField(nullable('integer'), 'send_email: a template of this channel; it fills the fields left empty.'),
  delay: actionField({ type: 'integer' }, `delay: whole seconds, 1 to ${MAX_STEP_DELAY_SECONDS}; condition: seconds before evaluating (default 0).`),
  time: actionField({ type: 'string' }, 'delay_until_time: HH:MM.'),
  timezone: actionField({ type: 'string' }, 'delay_until_time: an IANA time zone (default UTC).'),
  condition_setting: actionField({ type: 'string', enum: [...CONDITION_SETTINGS] }, 'condition.'),
  target_sequence_id: actionField({ type: 'integer' }, 'move_to_sequence: another sequence of this channel.'),
  tags: actionField({ type: 'array', items: { type: 'string' } }, 'add_tag_to_subscriber, remove_tag_from_subscriber.'),
  taggify_list: actionField({ type: 'string' }, '"a,b": read as tags when tags is absent.'),
  http_method: actionField({ type: 'string', enum: [...HTTP_METHODS] }, 'make_http_request (default POST).'),
  url: actionField({ type: 'string' }, 'make_http_request: under the webhook URL rules.'),
  headers: actionField({ type: 'object', additionalProperties: { type: 'string' } }, 'make_http_request.'),
  paused: Joi.boolean()
    .strict()
    .description('Update only, send_email: false resumes a step the reputation guard (or a person) paused; true pauses it (docs/reputation-guard.md).'),
});

/** Moving a step: its new parent. */
export const moveFields = Joi.object({ under_id: id.required().description('The new parent: not a condition, not in the moved subtree.') });

/** Enrolling a subscriber by address, created or updated with these fields. */
export const subscriberFields = Joi.object({
  email: Joi.string().max(320).required(),
  first_name: text(1_000).allow('', null),
  last_name: text(1_000).allow('', null),
  tags: Joi.array().items(text(255)).max(1_000),
  custom_data: Joi.object().unknown(true),
});

export const SEQUENCE_BODY: BodyShape = { key: 'sequence', fields: keysOf(sequenceFields) };
export const STEP_BODY: BodyShape = { key: 'step', fields: [...keysOf(stepFields), 'under_id'] };
export const SUBSCRIBER_BODY: BodyShape = { key: 'subscriber', fields: keysOf(subscriberFields), options: ['restart'] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unwrap(body: unknown, key: string): Record<string, unknown> {
  const top = isObject(body) ? body : {};
  return isObject(top[key]) ? (top[key] as Record<string, unknown>) : top;
}

/** Every problem at once, each under the field it names (a 422 `{errors}`). */
function validated(schema: Joi.ObjectSchema, value: Record<string, unknown>): Record<string, unknown> {
  const { error, value: checked } = schema.unknown(true).validate(value, { abortEarly: false, convert: false });
  if (error) {
    const errors: Record<string, string[]> = {};
    for (const d of error.details) (errors[String(d.path[0] ?? 'body')] ??= []).push(d.message.replace(/^"[^"]*" /, ''));
    throw ValidationError.forFields(errors);
  }
  return checked as Record<string, unknown>;
}

export function sequenceBody(body: unknown): SequenceChanges {
  const v = validated(sequenceFields, unwrap(body, 'sequence'));
  const c: SequenceChanges = {};
  const label = (v.label ?? v.name) as string | undefined;
  if (label !== undefined) c.label = label;
  if (v.active !== undefined) c.active = v.active as boolean;
  if (v.track_opens !== undefined) c.trackOpens = v.track_opens as boolean;
  if (v.track_clicks !== undefined) c.trackClicks = v.track_clicks as boolean;
  if (v.use_any_email_server !== undefined) c.useAnyEmailServer = v.use_any_email_server as boolean;
  if (v.email_server_ids !== undefined) c.emailServerIds = v.email_server_ids as number[];
  if (v.init_tag !== undefined) c.initTag = v.init_tag as string | null;
  if (v.init_segment_id !== undefined) c.initSegmentId = v.init_segment_id as number | null;
  if (v.topic_id !== undefined) c.topicId = v.topic_id as number | null;
  if (v.excluded_segment_ids !== undefined) c.excludedSegmentIds = v.excluded_segment_ids as number[];
  if (v.parent_sequence_id !== undefined) c.parentSequenceId = v.parent_sequence_id as number | null;
  return c;
}

export function stepBody(body: unknown): StepInput {
  const v = validated(stepFields, unwrap(body, 'step'));
  const { action, label, parent_id, paused, ...fields } = v;
  return {
    ...(action !== undefined ? { action: action as string } : {}),
    ...(paused !== undefined ? { paused: paused as boolean } : {}),
    ...(label !== undefined ? { label: (label as string | null) || null } : {}),
    ...(parent_id !== undefined ? { parentId: parent_id as number } : {}),
    fields,
  };
}

export function moveBody(body: unknown): number | undefined {
  const v = validated(
    moveFields.fork(['under_id'], (f) => f.optional()),
    unwrap(body, 'step'),
  );
  return v.under_id as number | undefined;
}

export function addSubscriberBody(body: unknown): Omit<AddSequenceSubscriberInput, 'sequenceId'> {
  const v = validated(
    subscriberFields.fork(['email'], (f) => f.optional()),
    unwrap(body, 'subscriber'),
  );
  const restart = isObject(body) ? body.restart : undefined;
  if (restart !== undefined && typeof restart !== 'boolean') throw ValidationError.forFields({ restart: ['must be a boolean'] });
  if (typeof v.email !== 'string' || v.email.trim() === '') throw ValidationError.forFields({ email: ["can't be blank"] });
  return {
    email: v.email,
    ...(v.first_name !== undefined ? { firstName: (v.first_name as string | null) || null } : {}),
    ...(v.last_name !== undefined ? { lastName: (v.last_name as string | null) || null } : {}),
    ...(v.tags !== undefined ? { tags: v.tags as string[] } : {}),
    ...(v.custom_data !== undefined ? { customData: v.custom_data as Record<string, unknown> } : {}),
    restart: restart === true,
  };
}

/** remove_subscriber names the address in the body (either form) or the query. */
export function removeSubscriberEmail(body: unknown, query: unknown): string {
  const fromBody = unwrap(body, 'subscriber').email;
  const fromQuery = isObject(query) ? query.email : undefined;
  const email = fromBody ?? fromQuery;
  if (typeof email !== 'string' || email.trim() === '') throw ValidationError.forFields({ email: ["can't be blank"] });
  return email;
}

const listQuery = Joi.object({
  page: Joi.number().integer().min(1).max(1_000_000_000).messages({ '*': 'must be a positive integer' }),
  status: Joi.string()
    .valid(...ENROLMENT_STATUSES)
    .messages({ '*': `must be one of ${ENROLMENT_STATUSES.join(', ')}` }),
}).unknown(true);

export function enrolmentsQuery(query: unknown): { page: number; status: EnrolmentStatus | null } {
  const { value, error } = listQuery.validate(query ?? {}, { convert: true, abortEarly: false });
  if (error) {
    const errors: Record<string, string[]> = {};
    for (const d of error.details) (errors[String(d.path[0])] ??= []).push(d.message);
    throw ValidationError.forFields(errors);
  }
  const v = value as { page?: number; status?: EnrolmentStatus };
  return { page: v.page ?? 1, status: v.status ?? null };
}

export function includeSteps(query: unknown): boolean {
  return isObject(query) && (query.include_steps === 'true' || query.include_steps === '1');
}
