import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { CHANNEL_NOT_FOUND } from '../auth/act-for-channel';
import { ValidationError } from '../errors';
import { UserRepository } from '../ports';
import { resolveGrant, type ChannelGrant } from './channel-grant';
import { assertNotOwnPermissions, changeableUser, flagsNotHeld, NOT_HELD, requireUserManager } from './user-access';
import { permissionView, type ChannelPermissionView } from './user-view';

export const MAX_BULK_CHANNELS = 1_000;

export interface BulkOutcome {
  applied: ChannelPermissionView[];
  failed: Array<{ channelId: number; error: string }>;
  turnedOn: string[];
}

/**
 * One grant to many channels (docs/teams.md, Users API): each channel is applied on its own, no
 * rollback; a channel that does not exist, or whose flags the caller does not hold, goes into
 * `failed`. A bad grant, user or caller refuses the whole request before any write.
 */
@injectable()
export class BulkPutChannelPermissions {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number; channelIds: readonly number[]; grant: ChannelGrant }): Promise<BulkOutcome> {
    requireUserManager(caller, 'users_write');
    if (input.channelIds.length === 0) throw new ValidationError('broadcast_channel_ids must name at least one channel');
    if (input.channelIds.length > MAX_BULK_CHANNELS) throw new ValidationError(`broadcast_channel_ids may name at most ${MAX_BULK_CHANNELS} channels`);
    const { user, powers } = await changeableUser(this.users, caller, input.userId);
    assertNotOwnPermissions(powers, user);
    const grant = await resolveGrant(this.users, input.grant);
    const outcome: BulkOutcome = { applied: [], failed: [], turnedOn: grant.turnedOn };
    for (const channelId of new Set(input.channelIds)) {
      const missing = flagsNotHeld(powers, channelId, grant.flags);
      if (missing.length > 0) {
        outcome.failed.push({ channelId, error: `${NOT_HELD}: ${missing.join(', ')}` });
        continue;
      }
      const row = await this.users.putChannelPermission(user.id, channelId, grant.flags, grant.presetId);
      if (row === null) outcome.failed.push({ channelId, error: CHANNEL_NOT_FOUND });
      else outcome.applied.push(permissionView(row));
    }
    return outcome;
  }
}
