import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Templates, Transactor, type Template } from '../ports';
import { toTemplateFields, type TemplateInput } from './template-input';

export const TEMPLATE_NOT_FOUND = 'Template not found';

/** Only the fields given change; the result is validated as a whole, as at create. */
@injectable()
export class UpdateTemplate {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number; changes: TemplateInput }): Promise<Template> {
    return this.transactor.run(async (r) => {
      const current = await r.templates.findById(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(TEMPLATE_NOT_FOUND);
      const fields = toTemplateFields(input.changes, this.templates, current);
      const updated = await r.templates.update(caller.channelId, input.id, fields, this.clock.now());
      if (updated === null) throw new NotFoundError(TEMPLATE_NOT_FOUND);
      return updated;
    });
  }
}
