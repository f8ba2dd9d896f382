import { AUDIT_LOG_ADMIN_ONLY } from '@mailcast/core';
import { auditLogQuery } from '../http/audit-log/audit-log.schemas';
import { authenticated, type Json, ok } from './operation';
import { queryParameters } from './schema-helpers';
import { ref } from './schemas';

export const AUDIT_LOG = 'Audit log';

/** docs/teams.md, "Audit log". */
export const AUDIT_LOG_PATHS: Record<string, Json> = {
  '/api/v1/audit_log': {
    get: authenticated({
      operationId: 'listAuditLog',
      summary: 'List the audit log',
      description: `Every write (POST, PUT, PATCH, DELETE) a token or a signed-in user made under \`/api/v1\` and \`/auth\`, refused ones included, newest first; kept 365 days. Never a request body. An admin token (no \`broadcast_channel_id\` needed) or a sudo user; a channel token gets 403 \`{"error": "${AUDIT_LOG_ADMIN_ONLY}"}\`. A bad \`limit\`, \`offset\`, id or instant: 422.`,
      tag: AUDIT_LOG,
      permission: 'audit_log_read',
      parameters: queryParameters(auditLogQuery),
      responses: { '200': ok('A page of entries.', ref('AuditLogPage')) },
      errors: ['403', '422'],
    }),
  },
};
