import { inject, injectable } from 'tsyringe';
import { Repositories } from '../ports';

/** The heartbeat of the first attempts a dispatcher holds in memory (docs/sending-reliability.md). */
@injectable()
export class ExtendWebhookAttemptLeases {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(input: { deliveryIds: readonly number[]; leaseMs: number }): Promise<void> {
    if (input.deliveryIds.length === 0) return;
    await this.repositories.webhookDeliveries.extendLeases(input.deliveryIds, input.leaseMs);
  }

  /** Attempts handed to a job instead: no lease is left to lapse into a second copy. */
  async release(input: { deliveryIds: readonly number[] }): Promise<void> {
    if (input.deliveryIds.length === 0) return;
    await this.repositories.webhookDeliveries.extendLeases(input.deliveryIds, null);
  }
}
