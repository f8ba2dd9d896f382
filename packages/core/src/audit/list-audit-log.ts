import { inject, injectable } from 'tsyringe';
import { requireAdmin, requirePermission, type Principal } from '../auth/authenticate';
import { AuditLog, type AuditEntry, type AuditLogFilter, type Page } from '../ports';

export const AUDIT_LOG_ADMIN_ONLY = 'Admin API token required for the audit log';

/**
 * The audit log spans every channel (docs/teams.md, "Audit log"): an admin token holding
 * `audit_log_read`, or a sudo user (whose principal is an admin's), reads it; a channel token
 * gets 403 whatever it holds.
 */
@injectable()
export class ListAuditLog {
  constructor(@inject(AuditLog) private readonly auditLog: AuditLog) {}

  async execute(principal: Principal, input: { filter: AuditLogFilter; page: Page }): Promise<{ items: AuditEntry[]; total: number }> {
    requireAdmin(principal, AUDIT_LOG_ADMIN_ONLY);
    requirePermission(principal, 'audit_log_read');
    return this.auditLog.list(input.filter, input.page);
  }
}
