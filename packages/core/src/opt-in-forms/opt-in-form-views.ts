import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, Transactor, type OptInForm, type OptInFormCounters, type OptInFormListFilter } from '../ports';
import { formOrNotFound } from './form-rules';

/** A form as the API shows it: its all-time counters and, for a main form, how many variants it has. */
export interface OptInFormView {
  form: OptInForm;
  counters: OptInFormCounters;
  variantsCount: number;
}

export const OPT_IN_FORMS_PAGE_SIZE = 250;

/** The views of forms, read together. */
export async function viewsOf(r: Repositories, forms: readonly OptInForm[]): Promise<OptInFormView[]> {
  const ids = forms.map((f) => f.id);
  const [counters, variants] = await Promise.all([r.optInForms.counters(ids), r.optInForms.variantCounts(ids)]);
  return forms.map((form) => ({
    form,
    counters: counters.get(form.id) ?? { views: 0, uniqueViews: 0, submissions: 0 },
    variantsCount: variants.get(form.id) ?? 0,
  }));
}

@injectable()
export class GetOptInForm {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number }): Promise<OptInFormView> {
    const form = await formOrNotFound(this.repositories, principal.channelId, input.id);
    return (await viewsOf(this.repositories, [form]))[0]!;
  }
}

/** Main forms only, oldest first, 250 a page (docs/opt-in-forms.md "Listing"). */
@injectable()
export class ListOptInForms {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: OptInFormListFilter & { page: number }): Promise<{ items: OptInFormView[]; total: number }> {
    const { page, ...filter } = input;
    const { items, total } = await this.repositories.optInForms.list(principal.channelId, filter, {
      limit: OPT_IN_FORMS_PAGE_SIZE,
      offset: (page - 1) * OPT_IN_FORMS_PAGE_SIZE,
    });
    return { items: await viewsOf(this.repositories, items), total };
  }
}

/** Its variants, blocks and counters go with it. */
@injectable()
export class DeleteOptInForm {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  execute(principal: Principal, input: { id: number }): Promise<void> {
    return this.transactor.run(async (r) => {
      await formOrNotFound(r, principal.channelId, input.id, true);
      await r.optInForms.delete(principal.channelId, input.id);
    });
  }
}
