import { ValidationError, type DkimAlgorithm, type EmailServerChanges } from '@mailcast/core';
import { SMTP_TLS_MODES } from '@mailcast/domain';
import Joi from 'joi';
import { keysOf, type BodyShape } from '../warnings';

/** Request shapes of the email server routes (docs/email-servers.md); meaning is the use case's. */
const text = (label: string) =>
  Joi.string()
    .max(1000)
    .allow('', null)
    .messages({ '*': `${label} must be a string` });
const limit = (label: string, unit: string) =>
  Joi.number()
    .integer()
    .min(1)
    .allow(null)
    .messages({ '*': `${label} must be a positive integer or null` })
    .description(`At most this many messages per ${unit} through the server, all dispatchers together; null: no limit.`);

/** The fields of a create or update body (EmailServerCreateInput and UpdateInput). */
export const emailServerSchema = Joi.object({
  name: text('Name'),
  host: Joi.string()
    .max(253)
    .messages({ '*': 'Host must be a string' })
    .description('Host name or IP address. Loopback, private, link-local and metadata addresses are refused unless SMTP_ALLOW_PRIVATE=true.'),
  // The range is the use case's rule ("must be an integer from 1 to 65535").
  port: Joi.number()
    .integer()
    .messages({ '*': 'Port must be an integer' })
    .meta({ 'x-openapi': { minimum: 1, maximum: 65535 } }),
  tls: Joi.string()
    .valid(...SMTP_TLS_MODES)
    .messages({ '*': `Tls must be one of ${SMTP_TLS_MODES.join(', ')}` })
    .meta({ 'x-openapi': { $ref: '#/components/schemas/SmtpTls' } }),
  smtp_username: text('Smtp username'),
  smtp_password: text('Smtp password').description('Write-only. The redacted form read from an answer leaves the password unchanged.'),
  from_email: text('From email'),
  from_name: text('From name'),
  max_per_second: limit('Max per second', 'second'),
  max_per_minute: limit('Max per minute', 'minute'),
  max_per_hour: limit('Max per hour', 'hour'),
  max_per_day: limit('Max per day', 'day'),
  dkim_domain: text('Dkim domain'),
  dkim_selector: text('Dkim selector'),
  bounce_domain: text('Bounce domain').description(
    'Set: broadcast emails through the server have the envelope sender `bounces+<token>@<bounce_domain>`, whose delivery status notifications the inbound SMTP listener matches to their recipient.',
  ),
  active: Joi.boolean()
    .messages({ '*': 'Active must be true or false' })
    .meta({ 'x-openapi': { default: true } }),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

export const EMAIL_SERVER_BODY: BodyShape = { key: 'email_server', fields: keysOf(emailServerSchema) };

function unwrap(body: unknown, key: string): Record<string, unknown> {
  const top = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const nested = top[key];
  return typeof nested === 'object' && nested !== null && !Array.isArray(nested) ? (nested as Record<string, unknown>) : top;
}

const blankToNull = (value: unknown) => (value === '' ? null : value);

/** API field → entity field; an empty string clears a text field. */
const MAPPING: Array<[string, keyof EmailServerChanges]> = [
  ['name', 'name'],
  ['host', 'host'],
  ['port', 'port'],
  ['tls', 'tls'],
  ['smtp_username', 'username'],
  ['smtp_password', 'password'],
  ['from_email', 'fromEmail'],
  ['from_name', 'fromName'],
  ['max_per_second', 'maxPerSecond'],
  ['max_per_minute', 'maxPerMinute'],
  ['max_per_hour', 'maxPerHour'],
  ['max_per_day', 'maxPerDay'],
  ['dkim_domain', 'dkimDomain'],
  ['dkim_selector', 'dkimSelector'],
  ['bounce_domain', 'bounceDomain'],
  ['active', 'active'],
];

export function emailServerBody(body: unknown): EmailServerChanges {
  const { value, error } = emailServerSchema.validate(unwrap(body, 'email_server'));
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const changes: Record<string, unknown> = {};
  for (const [api, entity] of MAPPING) {
    const v = (value as Record<string, unknown>)[api];
    if (v !== undefined) changes[entity] = blankToNull(v);
  }
  return changes as EmailServerChanges;
}

/** Create: host and port are required; tls defaults to starttls. */
export function newEmailServerBody(body: unknown) {
  const changes = emailServerBody(body);
  const missing = (['host', 'port'] as const).filter((f) => changes[f] === undefined || changes[f] === null);
  if (missing.length > 0) throw ValidationError.forFields(Object.fromEntries(missing.map((f) => [f, ["can't be blank"]])));
  return {
    ...changes,
    host: changes.host!,
    port: changes.port!,
    tls: changes.tls ?? 'starttls',
    username: changes.username ?? null,
    password: changes.password ?? null,
    fromEmail: changes.fromEmail ?? null,
    fromName: changes.fromName ?? null,
  };
}

/** The body of a DKIM key generation (DkimKeyBody). */
export const dkimSchema = Joi.object({
  algorithm: Joi.string()
    .valid('rsa')
    .messages({ '*': 'Algorithm must be rsa (Ed25519 signing is not supported)' })
    .description('RSA 2048 (Ed25519 is not supported: the signer is rsa-sha256 only).')
    .meta({ 'x-openapi': { default: 'rsa' } }),
  dkim_domain: Joi.string()
    .max(253)
    .messages({ '*': 'Dkim domain must be a string' })
    .description("Default: the server's dkim_domain, else the domain of its from_email."),
  dkim_selector: Joi.string().max(253).messages({ '*': 'Dkim selector must be a string' }).description("Default: the server's dkim_selector, else `mailcast`."),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: false });

export function dkimKeyBody(body: unknown): { algorithm: DkimAlgorithm; dkimDomain?: string; dkimSelector?: string } {
  const { value, error } = dkimSchema.validate(unwrap(body, 'email_server'));
  if (error) throw new ValidationError([...new Set(error.details.map((d) => d.message))].join(', '));
  const v = value as { algorithm?: DkimAlgorithm; dkim_domain?: string; dkim_selector?: string };
  return {
    algorithm: v.algorithm ?? 'rsa',
    ...(v.dkim_domain !== undefined ? { dkimDomain: v.dkim_domain } : {}),
    ...(v.dkim_selector !== undefined ? { dkimSelector: v.dkim_selector } : {}),
  };
}

/** `copy_to_channel`'s body: the reference clients send `{target_channel_id}` flat (docs/email-servers.md). */
export const copyToChannelSchema = Joi.object({
  target_channel_id: Joi.number()
    .integer()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .required()
    .messages({ 'any.required': 'target_channel_id is required', '*': 'target_channel_id must be a positive integer' })
    .description('The channel that receives the copy.'),
}).unknown(true);

export function copyToChannelBody(body: unknown): { targetChannelId: number } {
  const { value, error } = copyToChannelSchema.validate(unwrap(body, 'email_server'));
  if (error) throw new ValidationError(error.details[0]!.message);
  return { targetChannelId: (value as { target_channel_id: number }).target_channel_id };
}
