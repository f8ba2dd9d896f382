import { inject, injectable } from 'tsyringe';
import { Clock, UserSessionRepository } from '../ports';

/** Ends one session (docs/teams.md, Signing in): its cookie value is dead from now on. */
@injectable()
export class SignOut {
  constructor(
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(session: { id: number; userId: number }): Promise<void> {
    await this.sessions.revoke(session.userId, session.id, this.clock.now());
  }
}
