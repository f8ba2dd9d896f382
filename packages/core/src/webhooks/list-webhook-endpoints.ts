import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Page, type WebhookEndpoint } from '../ports';

@injectable()
export class ListWebhookEndpoints {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(principal: Principal, page: Page): Promise<{ items: WebhookEndpoint[]; total: number }> {
    return this.repositories.webhookEndpoints.list(principal.channelId, page);
  }
}
