import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../errors';
import { Clock, Transactor } from '../ports';

@injectable()
export class RevokeApiToken {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Takes effect on the next request: tokens are looked up on every request, not cached. */
  async execute(input: { id: number }): Promise<{ revoked: number }> {
    const found = await this.transactor.run((r) => r.apiTokens.revoke(input.id, this.clock.now()));
    if (!found) throw new NotFoundError('Token not found');
    return { revoked: input.id };
  }
}
