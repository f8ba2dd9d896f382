import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type WebhookEndpoint } from '../ports';
import { WEBHOOK_ENDPOINT_NOT_FOUND } from './webhook-endpoint-rules';

@injectable()
export class GetWebhookEndpoint {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number }): Promise<WebhookEndpoint> {
    const endpoint = await this.repositories.webhookEndpoints.findById(principal.channelId, input.id);
    if (endpoint === null) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
    return endpoint;
  }
}
