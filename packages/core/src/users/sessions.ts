import { SESSION_IDLE_MS } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../errors';
import { Clock, UserSessionRepository, type UserSession } from '../ports';

export const SESSION_NOT_FOUND = 'Session not found';

/** A user's own live sessions (docs/teams.md, Signing in), most recently used first. */
@injectable()
export class ListSessions {
  constructor(
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(userId: number): Promise<UserSession[]> {
    return this.sessions.listLive(userId, new Date(this.clock.now().getTime() - SESSION_IDLE_MS));
  }
}

/** Ends one of the user's own sessions; another user's (or one already ended) is not found. */
@injectable()
export class RevokeSession {
  constructor(
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(userId: number, sessionId: number): Promise<void> {
    if (!(await this.sessions.revoke(userId, sessionId, this.clock.now()))) throw new NotFoundError(SESSION_NOT_FOUND);
  }
}
