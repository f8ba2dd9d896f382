import { csrfTokenFor, hashSessionSecret, SESSION_TOUCH_EVERY_MS, sessionIsLive, timingSafeEqualBytes } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, SignInUserRepository, UserSessionRepository, type SignInUser, type UserSession } from '../ports';

export interface ResolvedSession {
  session: UserSession;
  user: SignInUser;
  /** The CSRF token of this session, derived again from the cookie (docs/teams.md). */
  csrfToken: string;
  /** Whether `csrfHeader` was this session's CSRF token. */
  csrfValid: boolean;
}

// The cookie is 32 bytes base64url (43 characters); anything else cannot be one of ours.
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The live session a cookie names, or null (docs/teams.md, Signing in): unknown, revoked, idle
 * for 12 h, or of a user no longer active. A use marks the session seen (at most once a minute),
 * which is what keeps it from idling out.
 */
@injectable()
export class ResolveSession {
  constructor(
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { cookieValue: string | undefined; csrfHeader?: string | undefined }): Promise<ResolvedSession | null> {
    const value = input.cookieValue;
    if (value === undefined || !COOKIE_VALUE.test(value)) return null;
    const hash = hashSessionSecret(value);
    const found = await this.sessions.findByTokenHash(hash);
    const now = this.clock.now();
    if (found === null || !timingSafeEqualBytes(found.tokenHash, hash) || !sessionIsLive(found, now)) return null;
    const user = await this.users.findById(found.userId);
    // Deactivating a user ends their sessions even if the revocation was missed.
    if (user === null || !user.active) return null;
    if (now.getTime() - found.lastSeenAt.getTime() >= SESSION_TOUCH_EVERY_MS) await this.sessions.touch(found.id, now);
    const csrfToken = csrfTokenFor(value);
    const header = input.csrfHeader;
    const csrfValid = header !== undefined && header.length > 0 && header.length <= 128 && timingSafeEqualBytes(hashSessionSecret(header), found.csrfHash);
    const { tokenHash: _t, csrfHash: _c, ...session } = found;
    return { session: { ...session, lastSeenAt: now }, user, csrfToken, csrfValid };
  }
}
