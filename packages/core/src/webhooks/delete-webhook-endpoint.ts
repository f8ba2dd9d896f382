import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Transactor } from '../ports';
import { WEBHOOK_ENDPOINT_NOT_FOUND } from './webhook-endpoint-rules';

@injectable()
export class DeleteWebhookEndpoint {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Spec: pending deliveries are cancelled; their queued jobs then find nothing to do. */
  async execute(principal: Principal, input: { id: number }): Promise<void> {
    const deleted = await this.transactor.run((r) => r.webhookEndpoints.delete(principal.channelId, input.id, this.clock.now()));
    if (!deleted) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
  }
}
