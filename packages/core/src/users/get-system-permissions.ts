import type { SystemPermissions } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UserRepository } from '../ports';
import { findUser, requireUserManager } from './user-access';

/** What a user may do over the whole installation (docs/teams.md, "Users API"). */
@injectable()
export class GetSystemPermissions {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number }): Promise<SystemPermissions> {
    requireUserManager(caller, 'users_read');
    return (await findUser(this.users, input.userId)).systemPermissions;
  }
}
