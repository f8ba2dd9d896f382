import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Broadcast, type Page } from '../ports';

@injectable()
export class ListBroadcasts {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(principal: Principal, page: Page): Promise<{ items: Broadcast[]; total: number }> {
    return this.repositories.broadcasts.list(principal.channelId, page);
  }
}
