import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Broadcast } from '../ports';

export const BROADCAST_NOT_FOUND = 'Broadcast not found';

@injectable()
export class GetBroadcast {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number }): Promise<Broadcast> {
    const broadcast = await this.repositories.broadcasts.findById(principal.channelId, input.id);
    if (broadcast === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
    return broadcast;
  }
}
