import type { SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories } from '../ports';
import { splitBulkEmails, suppressionList } from './suppression-input';

export interface BulkAddResult {
  added: number;
  alreadySuppressed: number;
  /** The entries that are not addresses, as sent. */
  invalid: string[];
}

/** Up to 10,000 addresses in one statement; malformed entries are reported, not refused. */
@injectable()
export class AddSuppressionsInBulk {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: { scope: SuppressionScope; emails: readonly string[] }): Promise<BulkAddResult> {
    const list = suppressionList(principal, input.scope);
    const { valid, invalid } = splitBulkEmails(input.emails);
    const added = await this.repositories.suppressions.addMany(list, valid, 'manual', this.clock.now());
    return { added, alreadySuppressed: valid.length - added, invalid };
  }
}
