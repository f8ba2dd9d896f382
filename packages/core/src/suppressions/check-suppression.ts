import { type SuppressionReason, type SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories } from '../ports';
import { suppressionEmail } from './suppression-input';

export interface SuppressionCheck {
  email: string;
  suppressed: boolean;
  scope: SuppressionScope | null;
  reason: SuppressionReason | null;
}

/** Whether email from the caller's channel to the address is stopped, and by which list. */
@injectable()
export class CheckSuppression {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { email: string }): Promise<SuppressionCheck> {
    const email = suppressionEmail(input.email);
    const found = await this.repositories.suppressions.find(principal.channelId, email);
    return found === null ? { email, suppressed: false, scope: null, reason: null } : { email, suppressed: true, scope: found.scope, reason: found.reason };
  }
}
