import { ValidationError, type AuditLogFilter, type Page } from '@mailcast/core';
import Joi from 'joi';

export const MAX_AUDIT_PAGE = 250;
const id = (description: string) => Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).description(description);
const instant = (description: string) => Joi.date().iso().description(description);

/** The query of `GET /api/v1/audit_log` (docs/teams.md, "Audit log"); other parameters are ignored. */
export const auditLogQuery = Joi.object({
  limit: Joi.number()
    .integer()
    .min(1)
    .default(50)
    .description(`Entries per page: 1 to ${MAX_AUDIT_PAGE}, default 50; a larger value is clamped (the applied one is answered). Anything else is a 422.`),
  offset: Joi.number().integer().min(0).default(0).description('Entries skipped: default 0. A non-integer or negative value is a 422.'),
  channel_id: id('Only entries of this channel. (Not `broadcast_channel_id`: on an admin token that names the channel the request acts for, docs/auth.md.)'),
  user_id: id("Only a signed-in user's entries."),
  token_id: id("Only an API token's entries."),
  action: Joi.string().max(200).description('Only this action: an operationId (`createBroadcast`), or `METHOD path` for an undocumented route.'),
  since: instant('Only entries at or after this instant (ISO 8601).'),
  until: instant('Only entries at or before this instant (ISO 8601).'),
})
  .unknown(true)
  .prefs({ abortEarly: true, errors: { wrap: { label: false } } })
  .messages({
    'number.base': '{#label} must be a positive integer',
    'number.integer': '{#label} must be a positive integer',
    'number.min': '{#label} must be a positive integer',
    'number.max': '{#label} must be a positive integer',
    'date.base': '{#label} must be an ISO 8601 date or time',
    'date.format': '{#label} must be an ISO 8601 date or time',
    'string.base': '{#label} must be a string',
    'string.max': '{#label} must be at most 200 characters',
  });

export function auditLogParams(query: unknown): { filter: AuditLogFilter; page: Page } {
  const { value, error } = auditLogQuery.validate(query);
  if (error) throw new ValidationError(error.details[0]?.message ?? 'Invalid query');
  const v = value as { limit: number; offset: number; channel_id?: number; user_id?: number; token_id?: number; action?: string; since?: Date; until?: Date };
  const filter: AuditLogFilter = {
    ...(v.channel_id !== undefined ? { channelId: v.channel_id } : {}),
    ...(v.user_id !== undefined ? { userId: v.user_id } : {}),
    ...(v.token_id !== undefined ? { tokenId: v.token_id } : {}),
    ...(v.action !== undefined ? { action: v.action } : {}),
    ...(v.since !== undefined ? { since: v.since } : {}),
    ...(v.until !== undefined ? { until: v.until } : {}),
  };
  return { filter, page: { limit: Math.min(v.limit, MAX_AUDIT_PAGE), offset: v.offset } };
}
