import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { UserRepository } from '../ports';
import { assertNotOwnPermissions, changeableUser, requireUserManager } from './user-access';

export const CHANNEL_PERMISSION_NOT_FOUND = 'Channel permission not found';

/** Takes the user's access to one channel away. */
@injectable()
export class DeleteChannelPermission {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number; channelId: number }): Promise<void> {
    requireUserManager(caller, 'users_write');
    const { user, powers } = await changeableUser(this.users, caller, input.userId);
    assertNotOwnPermissions(powers, user);
    if (!(await this.users.deleteChannelPermission(user.id, input.channelId))) throw new NotFoundError(CHANNEL_PERMISSION_NOT_FOUND);
  }
}
