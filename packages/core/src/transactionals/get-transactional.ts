import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Transactional } from '../ports';

export const TRANSACTIONAL_NOT_FOUND = 'Transactional not found';

@injectable()
export class GetTransactional {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal, input: { id: number }): Promise<Transactional> {
    const found = await this.repositories.transactionals.findById(caller.channelId, input.id);
    if (found === null) throw new NotFoundError(TRANSACTIONAL_NOT_FOUND);
    return found;
  }
}
