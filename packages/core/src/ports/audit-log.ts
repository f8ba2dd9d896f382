import type { Page } from './entities/page';

/** Who made a change (docs/teams.md, "Audit log"): a signed-in user, an API token, or the admin CLI. */
export type AuditActorType = 'user' | 'token' | 'cli';

/**
 * One write, as the api (or the admin CLI) saw it. Never a request body: bodies carry secrets
 * (webhook secrets, SMTP passwords, user passwords).
 */
export interface NewAuditEntry {
  occurredAt: Date;
  actorType: AuditActorType;
  userId: number | null;
  tokenId: number | null;
  /**
   * Kept as written, so the entry still says who once the user or token is gone. Null lets
   * the store fill it in: the user's email, or the token's label.
   */
  actorLabel: string | null;
  /** The channel the request acted for; null for an installation-wide request. */
  channelId: number | null;
  method: string;
  /** The path without its query string. */
  path: string;
  status: number | null;
  ip: string | null;
  action: string;
  resourceType: string | null;
  resourceId: string | null;
}

export interface AuditEntry extends NewAuditEntry {
  id: number;
}

/** The filters of `GET /api/v1/audit_log`, every one optional. */
export interface AuditLogFilter {
  channelId?: number;
  userId?: number;
  tokenId?: number;
  action?: string;
  since?: Date;
  until?: Date;
}

export interface AuditLog {
  /** Writes the entries in one statement. */
  append(entries: readonly NewAuditEntry[]): Promise<void>;
  /** Newest first (by occurred_at, then id), with the total that match the filter. */
  list(filter: AuditLogFilter, page: Page): Promise<{ items: AuditEntry[]; total: number }>;
}
export const AuditLog = Symbol.for('mailcast.AuditLog');
