import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Templates, Transactor, type Template } from '../ports';
import { toTemplateFields, type TemplateInput } from './template-input';

/** Validates the Liquid of every field at save, so a broken template never reaches a send. */
@injectable()
export class CreateTemplate {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: TemplateInput): Promise<Template> {
    const fields = toTemplateFields(input, this.templates);
    return this.transactor.run((r) => r.templates.create(caller.channelId, fields, this.clock.now()));
  }
}
