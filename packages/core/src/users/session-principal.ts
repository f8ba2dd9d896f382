import { apiPermissionsOf, NO_FLAGS, PERMISSIONS, ROLE_FLAGS, roleOf, systemPermissionsOf, type ChannelFlags, type Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NO_CHANNEL, type Principal } from '../auth/authenticate';
import { CHANNEL_NOT_FOUND } from '../auth/act-for-channel';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { SignInUserRepository, type SignInUser } from '../ports';

export const NO_CHANNEL_ACCESS = 'No access to this channel';

/** A channel as `GET /auth/session` answers it (docs/teams.md, Signing in). */
export interface SessionChannel {
  id: number;
  name: string;
  slug: string;
  role: string;
  permissions: ChannelFlags;
}

/** What a user may do installation-wide through the API: users_* with user_management. */
function systemApiPermissions(user: SignInUser): Permission[] {
  return systemPermissionsOf(user.systemPermissions).user_management ? ['users_read', 'users_write'] : [];
}

function channelIdOf(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const id = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new ValidationError('broadcast_channel_id must be a positive integer');
  return id;
}

/**
 * The principal of a request made with a session (docs/teams.md, Using the API signed in): the
 * channel named by X-Mailcast-Channel or broadcast_channel_id, else the user's lowest-id channel;
 * the API permissions the user's flags grant there, never more. A sudo user reaches every
 * channel with every permission, as an admin token. A user with no channel acts for none
 * (NO_CHANNEL: every channel route finds nothing or is refused for want of permission).
 */
@injectable()
export class SessionPrincipal {
  constructor(@inject(SignInUserRepository) private readonly users: SignInUserRepository) {}

  async execute(user: SignInUser, rawChannelId: unknown): Promise<Principal> {
    const named = channelIdOf(rawChannelId);
    if (user.sudo) {
      let channelId: number = NO_CHANNEL;
      if (named !== undefined) {
        if ((await this.users.channel(named)) === null) throw new NotFoundError(CHANNEL_NOT_FOUND);
        channelId = named;
      } else {
        channelId = (await this.users.allChannels())[0]?.id ?? NO_CHANNEL;
      }
      return { tokenId: 0, userId: user.id, channelId, permissions: PERMISSIONS, admin: true };
    }
    const access = await this.users.channelAccess(user.id);
    // Whether the channel exists or not, a user without a row for it hears the same 403.
    const chosen = named === undefined ? access[0] : access.find((a) => a.channel.id === named);
    if (named !== undefined && chosen === undefined) throw new ForbiddenError(NO_CHANNEL_ACCESS);
    const permissions = [...(chosen ? apiPermissionsOf(chosen.permissions) : []), ...systemApiPermissions(user)];
    return { tokenId: 0, userId: user.id, channelId: chosen?.channel.id ?? NO_CHANNEL, permissions, flags: chosen?.permissions ?? NO_FLAGS };
  }

  /** The channels a user may act for, as `GET /auth/session` answers them (sudo: every one, as Manager). */
  async channels(user: SignInUser): Promise<SessionChannel[]> {
    if (user.sudo) return (await this.users.allChannels()).map((c) => ({ ...c, role: 'Manager', permissions: ROLE_FLAGS.Manager }));
    return (await this.users.channelAccess(user.id)).map((a) => ({ ...a.channel, role: roleOf(a.permissions, a.preset), permissions: a.permissions }));
  }
}
