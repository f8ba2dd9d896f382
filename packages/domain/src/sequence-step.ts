import { isValidTimezone } from './broadcast';

/** Every step action (docs/sequences.md, "Steps"); the first two are made by the sequence itself. */
export const STEP_ACTIONS = [
  'entry_point',
  'condition_branch',
  'send_email',
  'delay',
  'delay_until_time',
  'condition',
  'move_to_sequence',
  'add_tag_to_subscriber',
  'remove_tag_from_subscriber',
  'deactivate_subscriber',
  'make_http_request',
] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

export const CREATABLE_STEP_ACTIONS: readonly StepAction[] = STEP_ACTIONS.filter((a) => a !== 'entry_point' && a !== 'condition_branch');

export const CONDITION_SETTINGS = ['any_email_opened', 'previous_email_opened', 'any_email_clicked', 'previous_email_clicked'] as const;
export type ConditionSetting = (typeof CONDITION_SETTINGS)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** 365 days: the longest delay a step may wait. */
export const MAX_STEP_DELAY_SECONDS = 31_536_000;

/**
 * A step's action fields, by name as the API spells them. Only the fields of the step's action
 * are kept; `template_id` and `target_sequence_id` are checked against the channel by the caller.
 */
export interface StepSettings {
  subject?: string | null;
  preheader?: string | null;
  body?: string | null;
  html_body?: string | null;
  template_id?: number | null;
  delay?: number;
  time?: string;
  timezone?: string;
  condition_setting?: ConditionSetting;
  target_sequence_id?: number;
  tags?: string[];
  http_method?: (typeof HTTP_METHODS)[number];
  url?: string;
  headers?: Record<string, string>;
}

/** The fields each action keeps. */
export const STEP_FIELDS: Readonly<Record<StepAction, readonly (keyof StepSettings)[]>> = {
  entry_point: [],
  condition_branch: [],
  send_email: ['subject', 'preheader', 'body', 'html_body', 'template_id'],
  delay: ['delay'],
  delay_until_time: ['time', 'timezone'],
  condition: ['condition_setting', 'delay'],
  move_to_sequence: ['target_sequence_id'],
  add_tag_to_subscriber: ['tags'],
  remove_tag_from_subscriber: ['tags'],
  deactivate_subscriber: [],
  make_http_request: ['http_method', 'url', 'headers', 'body'],
};

export type StepFieldErrors = Record<string, string[]>;

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const optionalText = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

function wholeSeconds(v: unknown, min: number): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= MAX_STEP_DELAY_SECONDS;
}

/**
 * The action's settings from what is stored (`current`, on update) and what the request gives
 * (`given`), with defaults filled and every problem named by field. `taggify_list` ("a,b") is
 * read as `tags` when `tags` is absent.
 */
export function parseStepSettings(
  action: StepAction,
  given: Readonly<Record<string, unknown>>,
  current: StepSettings = {},
): { settings: StepSettings } | { errors: StepFieldErrors } {
  const merged: Record<string, unknown> = { ...current };
  for (const field of STEP_FIELDS[action]) if (given[field] !== undefined) merged[field] = given[field];
  if (given.tags === undefined && typeof given.taggify_list === 'string') {
    merged.tags = given.taggify_list.split(',');
  }
  const errors: StepFieldErrors = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
  const s: StepSettings = {};

  switch (action) {
    case 'send_email': {
      for (const f of ['subject', 'preheader', 'body', 'html_body'] as const) {
        if (!optionalText(merged[f])) fail(f, 'must be a string');
        else s[f] = (merged[f] as string | null | undefined) ?? null;
      }
      const template = merged.template_id ?? null;
      if (template !== null && !isId(template)) fail('template_id', 'must be a positive integer');
      else s.template_id = template as number | null;
      if (s.template_id == null && (typeof s.subject !== 'string' || s.subject.trim() === '')) fail('subject', "can't be blank");
      break;
    }
    case 'delay':
      if (!wholeSeconds(merged.delay, 1)) fail('delay', `must be a whole number of seconds from 1 to ${MAX_STEP_DELAY_SECONDS}`);
      else s.delay = merged.delay as number;
      break;
    case 'delay_until_time': {
      if (typeof merged.time !== 'string' || !HH_MM.test(merged.time)) fail('time', 'must be a time of day as HH:MM');
      else s.time = merged.time;
      const zone = merged.timezone ?? 'UTC';
      if (typeof zone !== 'string' || !isValidTimezone(zone)) fail('timezone', 'must be an IANA time zone');
      else s.timezone = zone;
      break;
    }
    case 'condition': {
      const setting = merged.condition_setting;
      if (!(CONDITION_SETTINGS as readonly unknown[]).includes(setting)) fail('condition_setting', `must be one of ${CONDITION_SETTINGS.join(', ')}`);
      else s.condition_setting = setting as ConditionSetting;
      const delay = merged.delay ?? 0;
      if (!wholeSeconds(delay, 0)) fail('delay', `must be a whole number of seconds from 0 to ${MAX_STEP_DELAY_SECONDS}`);
      else s.delay = delay as number;
      break;
    }
    case 'move_to_sequence':
      if (!isId(merged.target_sequence_id)) fail('target_sequence_id', 'must be the id of another sequence');
      else s.target_sequence_id = merged.target_sequence_id;
      break;
    case 'add_tag_to_subscriber':
    case 'remove_tag_from_subscriber': {
      const tags = merged.tags;
      const valid = Array.isArray(tags) && tags.every((t) => typeof t === 'string');
      const cleaned = valid ? [...new Set((tags as string[]).map((t) => t.trim()).filter((t) => t !== ''))] : [];
      if (cleaned.length === 0) fail('tags', 'must name at least one tag');
      else s.tags = cleaned;
      break;
    }
    case 'make_http_request': {
      const method = typeof merged.http_method === 'string' ? merged.http_method.toUpperCase() : (merged.http_method ?? 'POST');
      if (!(HTTP_METHODS as readonly unknown[]).includes(method)) fail('http_method', `must be one of ${HTTP_METHODS.join(', ')}`);
      else s.http_method = method as StepSettings['http_method'];
      if (typeof merged.url !== 'string' || merged.url.trim() === '') fail('url', "can't be blank");
      else s.url = merged.url.trim();
      const headers = merged.headers ?? {};
      const headersValid =
        typeof headers === 'object' && headers !== null && !Array.isArray(headers) && Object.values(headers).every((v) => typeof v === 'string');
      if (!headersValid) fail('headers', 'must be an object of header names to string values');
      else s.headers = headers as Record<string, string>;
      if (!optionalText(merged.body)) fail('body', 'must be a string');
      else s.body = (merged.body as string | null | undefined) ?? null;
      break;
    }
    default:
      break;
  }
  return Object.keys(errors).length > 0 ? { errors } : { settings: s };
}
