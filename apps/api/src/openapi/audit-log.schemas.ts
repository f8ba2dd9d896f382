import { arrayOf, boolean, closed, dateTime, integer, nullableString, ref, string, type Schema } from './schema-helpers';

const nullableInteger = (description?: string): Schema => ({ type: ['integer', 'null'], ...(description ? { description } : {}) });

/** docs/teams.md, "Audit log". */
export const AUDIT_LOG_SCHEMAS: Record<string, Schema> = {
  AuditEntry: closed({
    id: integer(),
    occurred_at: dateTime('When the response finished.'),
    actor: closed({
      type: { type: 'string', enum: ['user', 'token', 'cli'] },
      id: nullableInteger('The user id or token id; null for the admin CLI, or once the user or token is deleted.'),
      label: nullableString("The user's email or the token's label (else its shown prefix), as it was when written."),
    }),
    broadcast_channel_id: nullableInteger('The channel the request acted for; null for an installation-wide request.'),
    method: string(),
    path: string('Without the query string.'),
    status: nullableInteger('The answered status, 4xx included.'),
    ip: nullableString('The client address, as the per-address limits see it (TRUSTED_PROXIES).'),
    action: string('The operationId of the route (`createBroadcast`), or `METHOD path` with numbers as `:id` for an undocumented route.'),
    resource_type: nullableString('For a route with an `{id}`: the path segment before it (`broadcasts`).'),
    resource_id: nullableString('The `{id}` of the path.'),
  }),
  AuditLogPage: closed({
    data: arrayOf(ref('AuditEntry')),
    pagination: closed({
      total: integer('Entries matching the filters.'),
      limit: integer('The applied page size.'),
      offset: integer(),
      has_more: boolean(),
    }),
  }),
};
