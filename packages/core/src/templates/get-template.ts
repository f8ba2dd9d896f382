import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Template } from '../ports';
import { TEMPLATE_NOT_FOUND } from './update-template';

@injectable()
export class GetTemplate {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal, input: { id: number }): Promise<Template> {
    const template = await this.repositories.templates.findById(caller.channelId, input.id);
    if (template === null) throw new NotFoundError(TEMPLATE_NOT_FOUND);
    return template;
  }
}
