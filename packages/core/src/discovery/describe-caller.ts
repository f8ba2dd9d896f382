import type { ApiTokenType, Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NO_CHANNEL, type Principal } from '../auth/authenticate';
import { UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

/** What a token may know about itself (docs/discovery.md: whoami). */
export interface CallerDescription {
  tokenType: ApiTokenType;
  token: { id: number; permissions: readonly Permission[] };
  /** null for an admin token that names no channel (docs/discovery.md). */
  channel: { id: number; name: string; slug: string } | null;
}

@injectable()
export class DescribeCaller {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal): Promise<CallerDescription> {
    const token = { id: caller.tokenId, permissions: caller.permissions };
    if (caller.admin === true && caller.channelId === NO_CHANNEL) return { tokenType: 'admin_cross_channel', token, channel: null };
    const channel = await this.repositories.channels.findById(caller.channelId);
    // A token outlives nothing: its channel is deleted with it (cascade). Should the row vanish
    // between authentication and here, the token no longer names anything.
    if (channel === null) throw new UnauthorizedError();
    return { tokenType: caller.admin === true ? 'admin_cross_channel' : 'channel', token, channel: { id: channel.id, name: channel.name, slug: channel.slug } };
  }
}
