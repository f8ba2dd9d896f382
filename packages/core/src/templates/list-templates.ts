import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Page, type Template } from '../ports';

/** Newest first, with limit and offset like the other lists without pages. */
@injectable()
export class ListTemplates {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(caller: Principal, page: Page): Promise<{ items: Template[]; total: number }> {
    return this.repositories.templates.list(caller.channelId, page);
  }
}
