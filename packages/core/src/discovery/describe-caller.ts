import { CHANNEL_PERMISSIONS, PERMISSIONS, redactedTokenValue, type ApiTokenType, type Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NO_CHANNEL, type Principal } from '../auth/authenticate';
import { UnauthorizedError } from '../errors';
import { Repositories, UserIdentities } from '../ports';

/** whoami's top-level `type` (docs/discovery.md): the reference service's names for the two token kinds. */
export type CallerType = 'channel_scoped' | 'admin_cross_channel';

export interface DescribedChannel {
  id: number;
  name: string;
  slug: string;
}

/** A token as whoami shows it: never the token itself, never its hash. */
export interface DescribedToken {
  id: number;
  label: string | null;
  type: CallerType;
  /** The first four characters, eight `•`, the last four (docs/discovery.md). */
  redactedValue: string;
  lastUsedAt: Date | null;
  /** Every permission of the token's kind, each true or false. */
  permissions: Record<string, boolean>;
}

/** What a caller may know about itself (docs/discovery.md: whoami). */
export type CallerDescription =
  | {
      type: CallerType;
      /** The older clients' name for the kind (docs/discovery.md): `channel` or `admin_cross_channel`. */
      tokenType: ApiTokenType;
      token: DescribedToken;
      /** null for an admin token that names no channel. */
      channel: DescribedChannel | null;
    }
  | {
      /** A signed-in dashboard user (docs/discovery.md, "A signed-in user"). */
      type: 'user';
      user: { id: number; email: string; permissions: Record<string, boolean> };
      channel: DescribedChannel | null;
    };

/** Every name of `names`, true where the caller holds it. */
export function permissionMap(names: readonly Permission[], held: readonly Permission[]): Record<string, boolean> {
  return Object.fromEntries(names.map((name) => [name, held.includes(name)]));
}

const callerType = (type: ApiTokenType): CallerType => (type === 'channel' ? 'channel_scoped' : 'admin_cross_channel');

@injectable()
export class DescribeCaller {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(UserIdentities) private readonly users: UserIdentities,
  ) {}

  async execute(caller: Principal): Promise<CallerDescription> {
    const channel = await this.channelOf(caller);
    if (caller.userId !== undefined && caller.tokenId === 0) {
      const user = await this.users.findIdentity(caller.userId);
      if (user === null) throw new UnauthorizedError();
      // A user's permissions are those of the acting channel; sudo and user management reach admin-only ones.
      return { type: 'user', user: { ...user, permissions: permissionMap(PERMISSIONS, caller.permissions) }, channel };
    }
    const token = await this.repositories.apiTokens.findById(caller.tokenId);
    // Revoked between authentication and here: it no longer names anything.
    if (token === null || token.revokedAt !== null) throw new UnauthorizedError();
    const type = callerType(token.type);
    return {
      type,
      tokenType: token.type,
      token: {
        id: token.id,
        label: token.label,
        type,
        redactedValue: redactedTokenValue(token.prefix, token.suffix),
        lastUsedAt: token.lastUsedAt,
        permissions: permissionMap(token.type === 'channel' ? CHANNEL_PERMISSIONS : PERMISSIONS, token.permissions),
      },
      channel,
    };
  }

  private async channelOf(caller: Principal): Promise<DescribedChannel | null> {
    if (caller.channelId === NO_CHANNEL) return null;
    const channel = await this.repositories.channels.findById(caller.channelId);
    // A channel token's channel is deleted with it (cascade); should the row vanish between
    // authentication and here, the token no longer names anything.
    if (channel === null) throw new UnauthorizedError();
    return { id: channel.id, name: channel.name, slug: channel.slug };
  }
}
