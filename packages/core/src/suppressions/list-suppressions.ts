import { SUPPRESSIONS_PAGE_SIZE, type SuppressionScope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories } from '../ports';
import { suppressionList } from './suppression-input';
import type { Suppression } from '../ports';

/** A suppression list, newest first, in pages of 250 as subscribers are. */
@injectable()
export class ListSuppressions {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(
    principal: Principal,
    input: { scope: SuppressionScope; emailContains?: string; page: number },
  ): Promise<{ items: Suppression[]; total: number; page: number }> {
    const list = suppressionList(principal, input.scope);
    const filter = input.emailContains === undefined ? {} : { emailContains: input.emailContains };
    const { items, total } = await this.repositories.suppressions.list(list, filter, {
      limit: SUPPRESSIONS_PAGE_SIZE,
      offset: (input.page - 1) * SUPPRESSIONS_PAGE_SIZE,
    });
    return { items, total, page: input.page };
  }
}
