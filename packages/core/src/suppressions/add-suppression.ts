import type { SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories } from '../ports';
import { suppressionEmail, suppressionList } from './suppression-input';
import type { Suppression } from '../ports';

/** Adds one address by hand (reason `manual`); an address already listed keeps its entry. */
@injectable()
export class AddSuppression {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: { scope: SuppressionScope; email: string }): Promise<{ suppression: Suppression; created: boolean }> {
    const list = suppressionList(principal, input.scope);
    return this.repositories.suppressions.add(list, suppressionEmail(input.email), 'manual', this.clock.now());
  }
}
