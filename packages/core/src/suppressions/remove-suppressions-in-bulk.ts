import type { SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories } from '../ports';
import { splitBulkEmails, suppressionList } from './suppression-input';

/**
 * Up to 10,000 addresses off a list; entries not on it (malformed ones too) count as not found,
 * and the malformed ones are also answered as `invalid`, as the add answers them (docs/suppressions.md).
 */
@injectable()
export class RemoveSuppressionsInBulk {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(
    principal: Principal,
    input: { scope: SuppressionScope; emails: readonly string[] },
  ): Promise<{ removed: number; notFound: number; invalid: string[] }> {
    const list = suppressionList(principal, input.scope);
    const { valid, invalid } = splitBulkEmails(input.emails);
    const removed = await this.repositories.suppressions.removeMany(list, valid);
    return { removed, notFound: valid.length - removed + invalid.length, invalid };
  }
}
