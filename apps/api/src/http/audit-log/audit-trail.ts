import { LoggerToken, type Logger } from '@mailcast/adapters';
import { Clock, NO_CHANNEL, RecordAuditEntries, type NewAuditEntry, type Principal } from '@mailcast/core';
import type { Request, RequestHandler, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { pathOf } from '../request-log';
import { AuditActions } from './audit-actions';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * POSTs that only compute an answer (a segment's count, a template's or broadcast's preview):
 * POST because their input is a body, not because they change anything, so they are reads and
 * not kept (docs/teams.md, "Audit log").
 */
const READ_ONLY_POSTS = /^\/api\/v1\/(?:segments\/count|templates\/preview|broadcasts\/[^/]+\/preview)\/?$/;
/** Entries per INSERT; more wait for the next statement. */
const MAX_BATCH = 500;
/** Entries held while the database is slow; beyond, new ones are logged instead of kept. */
const MAX_PENDING = 20_000;
const MAX_PATH = 2048;

/**
 * Writes entries one batch at a time: whatever arrives while a batch is being written goes in the
 * next statement, so a burst of writes costs a few INSERTs, and a quiet api one per write, at once.
 * A failed INSERT is logged with its entries (they carry no secret) and dropped: the audit log
 * never fails nor holds up a request (docs/teams.md, "Audit log").
 */
export class AuditQueue {
  private pending: NewAuditEntry[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly write: (entries: NewAuditEntry[]) => Promise<void>,
    private readonly logger: () => Logger,
  ) {}

  push(entry: NewAuditEntry): void {
    if (this.pending.length >= MAX_PENDING) {
      this.logger().error('audit log backlog full; entry not written', { audit: entry });
      return;
    }
    this.pending.push(entry);
    this.writing ??= this.drain();
  }

  /** Settles once every entry pushed so far is written (or logged as lost). */
  async idle(): Promise<void> {
    while (this.writing !== null) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      try {
        await this.write(batch);
      } catch (error) {
        this.logger().error('audit log entries not written', { error: (error as Error).message, audit: batch });
      }
    }
    this.writing = null;
  }
}

/**
 * Under /auth the routes look the session up themselves (`res.locals.session`) and set no
 * principal: a write there is the session's user's when it carried the session's CSRF token (one
 * without it may be a forgery from another site, not the user's act).
 */
function sessionPrincipal(res: Response): Principal | undefined {
  const session = res.locals.session as { user?: { id?: unknown }; csrfValid?: unknown } | undefined;
  const userId = session?.user?.id;
  if (typeof userId !== 'number' || session?.csrfValid !== true) return undefined;
  return { tokenId: 0, userId, channelId: NO_CHANNEL, permissions: [] };
}

/** The entry of one finished write, or null when no one authenticated or it was rate limited (docs/teams.md, "Audit log"). */
export function auditEntryOf(req: Request, res: Response, actions: AuditActions, now: Date): NewAuditEntry | null {
  const principal = (res.locals.principal as Principal | undefined) ?? sessionPrincipal(res);
  // Over its rate limit a token's writes are refused before anything is tried: a flood of them
  // must not become a flood of INSERTs (the limiter's own metrics count them).
  if (principal === undefined || res.statusCode === 429) return null;
  const path = pathOf(req).slice(0, MAX_PATH);
  const user = principal.userId !== undefined;
  return {
    occurredAt: now,
    actorType: user ? 'user' : 'token',
    userId: user ? principal.userId! : null,
    tokenId: user ? null : principal.tokenId,
    actorLabel: null,
    channelId: principal.channelId === NO_CHANNEL ? null : principal.channelId,
    method: req.method,
    path,
    status: res.statusCode,
    ip: req.ip ?? null,
    ...actions.of(req.method, path),
  };
}

export interface AuditTrail {
  middleware: RequestHandler;
  /** Settles once every write finished so far is in the audit log (tests, shutdown). */
  idle(): Promise<void>;
}

/**
 * Records every authenticated write (POST, PUT, PATCH, DELETE) once its response has finished,
 * whatever its status: a refused attempt is evidence too. Mounted in front of `/api/v1` and
 * `/auth`; it reads the principal the authentication below it left in `res.locals.principal`
 * (a request that never got one, a 401 for a missing or bad token, is not recorded). Bodies are
 * never read. The client address is `req.ip`, as for the per-address limits (trust proxy).
 */
export function auditTrail(container: DependencyContainer): AuditTrail {
  const actions = new AuditActions();
  const queue = new AuditQueue(
    (entries) => container.resolve(RecordAuditEntries).execute(entries),
    () => container.resolve<Logger>(LoggerToken),
  );
  const middleware: RequestHandler = (req, res, next) => {
    if (!WRITES.has(req.method) || (req.method === 'POST' && READ_ONLY_POSTS.test(pathOf(req)))) return next();
    res.once('finish', () => {
      try {
        const entry = auditEntryOf(req, res, actions, container.resolve<Clock>(Clock).now());
        if (entry !== null) queue.push(entry);
      } catch (error) {
        container.resolve<Logger>(LoggerToken).error('audit log entry not made', { error: (error as Error).message });
      }
    });
    next();
  };
  return { middleware, idle: () => queue.idle() };
}
