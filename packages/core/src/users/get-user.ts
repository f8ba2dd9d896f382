import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, UserRepository } from '../ports';
import { findUser, requireUserManager } from './user-access';
import { permissionView, viewOf, type UserDetail } from './user-view';

/** One user with its system and channel permissions (also the answer of every write). */
@injectable()
export class GetUser {
  constructor(
    @inject(UserRepository) private readonly users: UserRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal, input: { id: number }): Promise<UserDetail> {
    requireUserManager(caller, 'users_read');
    const user = await findUser(this.users, input.id);
    const rows = await this.users.channelPermissions(user.id);
    return { user: viewOf(user, this.clock.now()), channelPermissions: rows.map(permissionView) };
  }
}
