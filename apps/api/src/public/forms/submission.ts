/**
 * A submission's fields as the public endpoint reads them, JSON or form-encoded alike
 * (docs/opt-in-forms.md, "Submitting"): `email, first_name, last_name, name` (split at the first
 * space when the first name is not given), `custom_data[<key>]`, `topics[<topic id>]`, the
 * honeypot `website`, `rendered_at` (epoch ms) and the Turnstile answer.
 */
export interface SubmissionFields {
  email: string;
  firstName: string | null;
  lastName: string | null;
  customData: Record<string, unknown>;
  topics: Record<string, boolean>;
  honeypot: string;
  renderedAt: number | null;
  turnstileToken: string;
}

/** The answer to a successful sign-up, and to a bot that is told it succeeded. */
export const SUBMITTED_MESSAGE = 'Thank you for subscribing!';

const MAX_CUSTOM_FIELDS = 50;
const MAX_TEXT = 1000;
const CUSTOM_KEY = /^[a-z][a-z0-9_]*$/;
const TOPIC_ID = /^[1-9][0-9]{0,17}$/;
const YES = new Set(['1', 'true', 'on', 'yes']);

const str = (value: unknown): string => {
  if (Array.isArray(value)) value = value[value.length - 1];
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : typeof value === 'number' ? String(value) : '';
};
const optional = (value: unknown): string | null => {
  const s = str(value).trim();
  return s === '' ? null : s;
};
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * Form-encoded bodies are parsed flat (`topics[7]` stays one key): a nested parser reads
 * `topics[7]=1` as an array and loses the topic id. JSON bodies arrive nested already.
 */
function nestBrackets(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const [key, value] of Object.entries(body)) {
    const match = /^(custom_data|topics)\[([^\]]+)\]$/.exec(key);
    if (!match) continue;
    const group = match[1]!;
    const inner = { ...record(out[group]) };
    inner[match[2]!] = value;
    out[group] = inner;
    delete out[key];
  }
  return out;
}

export function readSubmission(raw: unknown): SubmissionFields {
  const body = nestBrackets(record(raw));
  let firstName = optional(body.first_name);
  let lastName = optional(body.last_name);
  const name = optional(body.name);
  if (name !== null && firstName === null) {
    const space = name.indexOf(' ');
    firstName = space < 0 ? name : name.slice(0, space);
    if (lastName === null && space >= 0) lastName = optional(name.slice(space + 1));
  }
  // Only simple values under a custom field's key shape; anything else is not a form field.
  const customData: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record(body.custom_data)).slice(0, MAX_CUSTOM_FIELDS)) {
    if (!CUSTOM_KEY.test(key)) continue;
    if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) customData[key] = value;
    else if (typeof value === 'string' || Array.isArray(value)) customData[key] = str(value);
  }
  const topics: Record<string, boolean> = {};
  for (const [id, value] of Object.entries(record(body.topics))) {
    if (!TOPIC_ID.test(id)) continue;
    topics[id] = value === true || value === 1 || YES.has(str(value).toLowerCase());
  }
  const renderedAt = Number(str(body.rendered_at));
  return {
    email: str(body.email),
    firstName,
    lastName,
    customData,
    topics,
    honeypot: str(body.website).trim(),
    renderedAt: str(body.rendered_at) !== '' && Number.isFinite(renderedAt) ? renderedAt : null,
    turnstileToken: str(body['cf-turnstile-response'] ?? body.turnstile_token),
  };
}
