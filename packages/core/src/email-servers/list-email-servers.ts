import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type EmailServer, type Page } from '../ports';

/** A channel has a handful of servers: the page is cut from the whole list. */
@injectable()
export class ListEmailServers {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, page: Page): Promise<{ items: EmailServer[]; total: number }> {
    const all = await this.repositories.emailServers.listForChannel(principal.channelId);
    return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }
}
