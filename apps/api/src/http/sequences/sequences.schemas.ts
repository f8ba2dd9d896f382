import { ValidationError, type AddSequenceSubscriberInput, type SequenceChanges, type StepInput } from '@mailcast/core';
import { ENROLMENT_STATUSES, type EnrolmentStatus } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of the sequence routes, flat or under `sequence` / `step` / `subscriber`
 * (docs/api-decisions.md). Types are checked here; what they mean together is the use cases'.
 */
const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);
const ids = Joi.array().items(id).max(1_000);
const text = (max: number) => Joi.string().max(max);

const sequenceFields = Joi.object({
  label: text(255).allow(''),
  name: text(255).allow(''),
  active: Joi.boolean(),
  track_opens: Joi.boolean(),
  track_clicks: Joi.boolean(),
  use_any_email_server: Joi.boolean(),
  email_server_ids: ids,
  init_tag: text(255).allow('', null),
  init_segment_id: id.allow(null),
  topic_id: id.allow(null),
  excluded_segment_ids: ids,
  parent_sequence_id: id.allow(null),
});

const stepFields = Joi.object({
  action: Joi.string(),
  label: text(255).allow('', null),
  parent_id: id,
  subject: Joi.any(),
  preheader: Joi.any(),
  body: Joi.any(),
  html_body: Joi.any(),
  template_id: Joi.any(),
  delay: Joi.any(),
  time: Joi.any(),
  timezone: Joi.any(),
  condition_setting: Joi.any(),
  target_sequence_id: Joi.any(),
  tags: Joi.any(),
  taggify_list: Joi.any(),
  http_method: Joi.any(),
  url: Joi.any(),
  headers: Joi.any(),
});

const subscriberFields = Joi.object({
  email: Joi.string().max(320),
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
  const { action, label, parent_id, ...fields } = v;
  return {
    ...(action !== undefined ? { action: action as string } : {}),
    ...(label !== undefined ? { label: (label as string | null) || null } : {}),
    ...(parent_id !== undefined ? { parentId: parent_id as number } : {}),
    fields,
  };
}

export function moveBody(body: unknown): number | undefined {
  const v = validated(Joi.object({ under_id: id }), unwrap(body, 'step'));
  return v.under_id as number | undefined;
}

export function addSubscriberBody(body: unknown): Omit<AddSequenceSubscriberInput, 'sequenceId'> {
  const v = validated(subscriberFields, unwrap(body, 'subscriber'));
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
