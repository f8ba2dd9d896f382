import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, UserRepository } from '../ports';
import { changeableUser, requireUserManager } from './user-access';

/**
 * deactivate: the user can no longer sign in, and every live session ends at once. activate:
 * signing in works again, and a running lockout is lifted (docs/teams.md, Lockout).
 */
@injectable()
export class SetUserActive {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: { id: number; active: boolean }): Promise<void> {
    requireUserManager(caller, 'users_write');
    await changeableUser(this.users, caller, input.id);
    await this.users.setActive(input.id, input.active, this.clock.now());
  }
}
