import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';

/**
 * The safety net under the delivery worker: a first attempt held in memory by a dispatcher that
 * died, or a job it held (pg-boss fails it rather than retrying it: retryLimit is 0), would
 * leave its delivery pending for ever. Deliveries untouched for longer than any job may stay
 * active are queued again as jobs; a copy of an attempt that was not lost after all finds it
 * already recorded and does nothing.
 */
@injectable()
export class RequeueStalledDeliveries {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { stalledAfterMs: number; limit: number }): Promise<number> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const jobs = await r.webhookDeliveries.takeStalled(new Date(now.getTime() - input.stalledAfterMs), now, input.limit);
      await r.jobs.sendMany(
        'webhooks.deliver',
        jobs.map((data) => ({ data })),
      );
      return jobs.length;
    });
  }
}
