import { inject, injectable } from 'tsyringe';
import { Transactor } from '../ports';

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
      await r.jobs.sendMany(
        'webhooks.deliver',
        jobs.map((data) => ({ data })),
      );
      return jobs.length;
    });
  }
}
