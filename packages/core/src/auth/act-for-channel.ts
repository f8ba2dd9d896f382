import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Repositories } from '../ports';
import type { Principal } from './authenticate';

export const CHANNEL_REQUIRED = 'broadcast_channel_id is required with an admin token';
export const CHANNEL_NOT_FOUND = 'Channel not found';

/**
 * An admin (cross-channel) token reaches a channel's resources by naming the channel with
 * `broadcast_channel_id` on each request (docs/auth.md, Admin tokens): missing is a 422, a
 * channel that does not exist a 404. What it names becomes the principal's channel, so every
 * route and use case below scopes by it as for that channel's own token.
 */
@injectable()
export class ActForChannel {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(admin: Principal, rawChannelId: unknown): Promise<Principal> {
    if (rawChannelId === undefined || rawChannelId === null || rawChannelId === '') throw new ValidationError(CHANNEL_REQUIRED);
    const id =
      typeof rawChannelId === 'number' ? rawChannelId : typeof rawChannelId === 'string' && /^\d{1,15}$/.test(rawChannelId) ? Number(rawChannelId) : NaN;
    if (!Number.isSafeInteger(id) || id < 1) throw new ValidationError('broadcast_channel_id must be a positive integer');
    if ((await this.repositories.channels.findById(id)) === null) throw new NotFoundError(CHANNEL_NOT_FOUND);
    return { ...admin, channelId: id };
  }
}
