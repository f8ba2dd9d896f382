import { AUDIT_LOG_ADMIN_ONLY, ListAuditLog, requireAdmin, requirePermission, type AuditEntry } from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal } from '../auth';
import { auditLogParams } from './audit-log.schemas';

/** One entry as the API answers it (docs/teams.md, "Audit log"). */
export function presentAuditEntry(e: AuditEntry) {
  return {
    id: e.id,
    occurred_at: e.occurredAt.toISOString(),
    actor: { type: e.actorType, id: e.actorType === 'user' ? e.userId : e.actorType === 'token' ? e.tokenId : null, label: e.actorLabel },
    broadcast_channel_id: e.channelId,
    method: e.method,
    path: e.path,
    status: e.status,
    ip: e.ip,
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
  };
}

/** `GET /api/v1/audit_log`: admin tokens with audit_log_read and sudo users; a channel token gets 403. */
export function auditLogRoutes(container: DependencyContainer): Router {
  const router = Router();

  router.get('/audit_log', async (req, res) => {
    const caller = anyPrincipal(res);
    // Who may read comes before what was asked: a channel token's bad limit is still a 403.
    requireAdmin(caller, AUDIT_LOG_ADMIN_ONLY);
    requirePermission(caller, 'audit_log_read');
    const input = auditLogParams(req.query);
    const { items, total } = await container.resolve(ListAuditLog).execute(caller, input);
    const { limit, offset } = input.page;
    res.json({ data: items.map(presentAuditEntry), pagination: { total, limit, offset, has_more: offset + items.length < total } });
  });

  return router;
}
