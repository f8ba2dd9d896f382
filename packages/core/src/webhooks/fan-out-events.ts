import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';

/**
 * The outbox relay's step: a batch of undispatched events becomes deliveries and their jobs in
 * one transaction, so a crash either leaves the events undispatched (a later step takes them)
 * or leaves every delivery queued. An event no endpoint subscribes to costs no job at all.
 */
@injectable()
export class FanOutEvents {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { batchSize: number }): Promise<{ events: number; deliveries: number }> {
    return this.transactor.run(async (r) => {
      const { events, deliveries } = await r.webhookDeliveries.fanOut(input.batchSize, this.clock.now());
      if (deliveries.length > 0) {
        await r.jobs.sendMany(
          'webhooks.deliver',
          deliveries.map((d) => ({ data: { deliveryId: d.deliveryId, endpointId: d.endpointId, attempt: d.attempt } })),
        );
      }
      return { events, deliveries: deliveries.length };
    });
  }
}
