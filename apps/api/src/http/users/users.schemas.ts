import { ValidationError, type ChannelGrant, type CreateUserInput, type UserFilter } from '@mailcast/core';
import { CHANNEL_FLAGS, ROLES, SYSTEM_PERMISSIONS } from '@mailcast/domain';
import Joi from 'joi';
import { pageParams } from '../params';
import { keysOf, type BodyShape } from '../warnings';

/**
 * Request shapes of /api/v1/users (docs/teams.md, Users API): flat or under `user` /
 * `channel_permission`. Types are checked here; what they mean is the use cases'. Errors are
 * one `{error}` message, as every §4 resource answers.
 */
const id = Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER);

export const userFields = Joi.object({
  email: Joi.string().max(320).description('Unique in any case; stored trimmed and lower-cased.'),
  first_name: Joi.string().max(255).allow('', null),
  last_name: Joi.string().max(255).allow('', null),
  password: Joi.string().max(4_000).description('At least 12 characters; stored as an argon2id hash, never answered.'),
  send_password_reset: Joi.boolean().description('Create only: mail the user a link (2 hours, once) to set their own password.'),
});

const flags = Joi.object(Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, Joi.boolean()]))).description(
  'Flag name → boolean; replaces every flag (an unnamed one is false). A write without its read turns the read on.',
);

export const grantFields = Joi.object({
  permissions: flags.unknown(true),
  role: Joi.string()
    .valid(...ROLES)
    .description('A role: its flags are copied.'),
  preset_id: id.description('A preset made by the admin CLI (`preset create`): its flags are copied.'),
});

export const bulkFields = grantFields.keys({
  broadcast_channel_ids: Joi.array().items(id).min(1).max(1_000).required(),
});

export const systemPermissionsFields = Joi.object({
  permissions: Joi.object(Object.fromEntries(SYSTEM_PERMISSIONS.map((p) => [p, Joi.boolean()])))
    .unknown(true)
    .required()
    .description('The system permissions to change, each true or false; those not named stay.'),
});

export const USER_BODY: BodyShape = { key: 'user', fields: keysOf(userFields), options: ['send_password_reset'] };
export const USER_UPDATE_BODY: BodyShape = { key: 'user', fields: keysOf(userFields).filter((f) => f !== 'send_password_reset') };
export const GRANT_BODY: BodyShape = { key: 'channel_permission', fields: keysOf(grantFields) };
export const BULK_BODY: BodyShape = { key: 'channel_permission', fields: keysOf(bulkFields) };
export const SYSTEM_BODY: BodyShape = { key: 'system_permissions', fields: keysOf(systemPermissionsFields) };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unwrap(body: unknown, key: string): Record<string, unknown> {
  const top = isObject(body) ? body : {};
  return isObject(top[key]) ? (top[key] as Record<string, unknown>) : top;
}

const SUDO_KEYS = new Set(['sudo', 'sudo_access']);

/** `sudo` or `sudo_access` at any depth of a body: 422 (sudo is the admin CLI's alone, docs/teams.md). */
export function refuseSudo(body: unknown): void {
  const seen = (value: unknown, depth: number): boolean =>
    depth < 8 &&
    (Array.isArray(value)
      ? value.some((v) => seen(v, depth + 1))
      : isObject(value) && Object.entries(value).some(([k, v]) => SUDO_KEYS.has(k) || seen(v, depth + 1)));
  if (seen(body, 0)) throw new ValidationError('sudo cannot be set through the API; use the admin CLI');
}

function validated(schema: Joi.ObjectSchema, value: Record<string, unknown>): Record<string, unknown> {
  const { error, value: checked } = schema
    .unknown(true)
    .prefs({ errors: { wrap: { label: false } } })
    .validate(value, { abortEarly: false, convert: false });
  if (error) throw new ValidationError(error.details.map((d) => d.message).join('; '));
  return checked as Record<string, unknown>;
}

const names = (v: Record<string, unknown>) => ({
  ...(v.first_name !== undefined ? { firstName: v.first_name as string | null } : {}),
  ...(v.last_name !== undefined ? { lastName: v.last_name as string | null } : {}),
});

export function createUserBody(body: unknown): CreateUserInput {
  refuseSudo(body);
  // send_password_reset is an option beside the user as well as one of its fields.
  const top = isObject(body) ? body : {};
  const v = validated(userFields, { ...(isObject(top.user) ? { send_password_reset: top.send_password_reset } : {}), ...unwrap(body, 'user') });
  if (typeof v.email !== 'string' || v.email.trim() === '') throw new ValidationError("Email can't be blank");
  return {
    email: v.email,
    ...names(v),
    ...(v.password !== undefined ? { password: v.password as string } : {}),
    ...(v.send_password_reset !== undefined ? { sendPasswordReset: v.send_password_reset as boolean } : {}),
  };
}

export function updateUserBody(body: unknown): { email?: string; firstName?: string | null; lastName?: string | null; password?: string } {
  refuseSudo(body);
  const v = validated(
    userFields.fork(['send_password_reset'], (f) => f.strip()),
    unwrap(body, 'user'),
  );
  return {
    ...(v.email !== undefined ? { email: v.email as string } : {}),
    ...names(v),
    ...(v.password !== undefined ? { password: v.password as string } : {}),
  };
}

/** Exactly one of permissions, role, preset_id (docs/teams.md, Users API). */
function grantOf(v: Record<string, unknown>): ChannelGrant {
  const given = (['permissions', 'role', 'preset_id'] as const).filter((k) => v[k] !== undefined);
  if (given.length !== 1) throw new ValidationError('Give exactly one of permissions, role or preset_id');
  if (v.permissions !== undefined) return { permissions: v.permissions as Record<string, unknown> };
  if (v.role !== undefined) return { role: v.role as string };
  return { presetId: v.preset_id as number };
}

export function grantBody(body: unknown): ChannelGrant {
  refuseSudo(body);
  // The role's name is checked by the use case, with the message listing the roles.
  return grantOf(
    validated(
      grantFields.fork(['role'], () => Joi.any()),
      unwrap(body, 'channel_permission'),
    ),
  );
}

export function bulkBody(body: unknown): { channelIds: number[]; grant: ChannelGrant } {
  refuseSudo(body);
  const v = validated(
    bulkFields.fork(['role'], () => Joi.any()),
    unwrap(body, 'channel_permission'),
  );
  return { channelIds: v.broadcast_channel_ids as number[], grant: grantOf(v) };
}

export function systemPermissionsBody(body: unknown): Record<string, unknown> {
  refuseSudo(body);
  const v = validated(
    systemPermissionsFields.fork(['permissions'], () => Joi.any()),
    unwrap(body, 'system_permissions'),
  );
  if (!isObject(v.permissions)) throw new ValidationError('permissions must be an object of system permission → true or false');
  return v.permissions;
}

const STATUSES = ['active', 'inactive'] as const;

export function listUsersQuery(query: unknown): UserFilter {
  const page = pageParams(query);
  const q = isObject(query) ? query.q : undefined;
  const status = isObject(query) ? query.status : undefined;
  if (q !== undefined && (typeof q !== 'string' || q.length > 320)) throw new ValidationError('q must be a string of at most 320 characters');
  if (status !== undefined && (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status))) {
    throw new ValidationError('status must be active or inactive');
  }
  return { ...page, ...(q !== undefined && q !== '' ? { q } : {}), ...(status !== undefined ? { status: status as 'active' | 'inactive' } : {}) };
}
