import { inject, injectable } from 'tsyringe';
import { Repositories, Transactor } from '../ports';

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

/**
 * First attempts whose holder stopped renewing their lease (it died) are queued again as jobs,
 * in seconds rather than after the stalled sweep's 20 minutes. A copy of an attempt that was
 * recorded after all finds it done and does nothing.
 */
@injectable()
export class RequeueLapsedAttempts {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  async execute(input: { leaseMs: number; limit: number }): Promise<number> {
    return this.transactor.run(async (r) => {
      const jobs = await r.webhookDeliveries.takeLapsed(input.leaseMs, input.limit);
      await r.jobs.sendMany('webhooks.deliver', jobs.map((data) => ({ data })));
      return jobs.length;
    });
  }
}
