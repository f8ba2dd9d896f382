import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { CHANNEL_NOT_FOUND } from '../auth/act-for-channel';
import { NotFoundError } from '../errors';
import { UserRepository } from '../ports';
import { resolveGrant, type ChannelGrant } from './channel-grant';
import { assertMayGrantFlags, assertNotOwnPermissions, changeableUser, requireUserManager } from './user-access';
import { permissionView, type ChannelPermissionView } from './user-view';

/** Sets a user's flags in one channel, replacing what it had there. */
@injectable()
export class PutChannelPermission {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(
    caller: Principal,
    input: { userId: number; channelId: number; grant: ChannelGrant },
  ): Promise<{ permission: ChannelPermissionView; turnedOn: string[] }> {
    requireUserManager(caller, 'users_write');
    const { user, powers } = await changeableUser(this.users, caller, input.userId);
    assertNotOwnPermissions(powers, user);
    const grant = await resolveGrant(this.users, input.grant);
    assertMayGrantFlags(powers, input.channelId, grant.flags);
    const row = await this.users.putChannelPermission(user.id, input.channelId, grant.flags, grant.presetId);
    if (row === null) throw new NotFoundError(CHANNEL_NOT_FOUND);
    return { permission: permissionView(row), turnedOn: grant.turnedOn };
  }
}
