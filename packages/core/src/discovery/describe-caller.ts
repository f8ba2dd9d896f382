import type { Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

/** What a token may know about itself (docs/discovery.md: whoami). */
export interface CallerDescription {
  token: { id: number; permissions: readonly Permission[] };
  channel: { id: number; name: string };
}

@injectable()
export class DescribeCaller {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal): Promise<CallerDescription> {
    const channel = await this.repositories.channels.findById(caller.channelId);
    // A token outlives nothing: its channel is deleted with it (cascade). Should the row vanish
    // between authentication and here, the token no longer names anything.
    if (channel === null) throw new UnauthorizedError();
    return {
      token: { id: caller.tokenId, permissions: caller.permissions },
      channel: { id: channel.id, name: channel.name },
    };
  }
}
