import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UserRepository } from '../ports';
import { findUser, requireUserManager } from './user-access';
import { permissionView, type ChannelPermissionView } from './user-view';

@injectable()
export class ListChannelPermissions {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number }): Promise<ChannelPermissionView[]> {
    requireUserManager(caller, 'users_read');
    const user = await findUser(this.users, input.userId);
    return (await this.users.channelPermissions(user.id)).map(permissionView);
  }
}
