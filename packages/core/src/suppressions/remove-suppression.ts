import type { SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories } from '../ports';
import { suppressionEmail, suppressionList } from './suppression-input';

/** Takes one address off a list; false when it was not on it. */
@injectable()
export class RemoveSuppression {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(principal: Principal, input: { scope: SuppressionScope; email: string }): Promise<boolean> {
    const list = suppressionList(principal, input.scope);
    return this.repositories.suppressions.remove(list, suppressionEmail(input.email));
  }
}
