import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';

/**
 * The safety net under the delivery jobs: pg-boss fails a job whose dispatcher died while
 * holding it (retryLimit is 0), which would leave its delivery pending for ever. Deliveries
 * untouched for longer than any job may stay active are queued again; a copy of a job that
 * was not lost after all finds its attempt already recorded and does nothing.
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
      await r.jobs.sendMany('webhooks.deliver', jobs.map((data) => ({ data })));
      return jobs.length;
    });
  }
}
