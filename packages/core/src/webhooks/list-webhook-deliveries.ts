import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Page, type WebhookDelivery } from '../ports';
import { WEBHOOK_ENDPOINT_NOT_FOUND } from './webhook-endpoint-rules';

@injectable()
export class ListWebhookDeliveries {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  /** Newest first (docs/webhooks.md); a deleted endpoint's history is gone with it (404). */
  async execute(principal: Principal, input: { id: number; page: Page }): Promise<{ items: WebhookDelivery[]; total: number }> {
    const endpoint = await this.repositories.webhookEndpoints.findById(principal.channelId, input.id);
    if (endpoint === null) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    return this.repositories.webhookDeliveries.listForEndpoint(endpoint.id, input.page);
  }
}
