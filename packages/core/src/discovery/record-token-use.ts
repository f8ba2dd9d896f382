import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories } from '../ports';

/**
 * Keeps a token's last_used_at (docs/discovery.md): the repository writes it at most once a
 * minute per token. A signed-in user (tokenId 0) has no token to mark.
 */
@injectable()
export class RecordTokenUse {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(caller: Principal): Promise<void> {
    if (caller.tokenId <= 0) return;
    await this.repositories.apiTokens.markUsed(caller.tokenId, this.clock.now());
  }
}
