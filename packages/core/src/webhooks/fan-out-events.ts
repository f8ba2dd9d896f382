import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, type ClaimedAttempt } from '../ports';

/**
 * The outbox relay's step: a batch of undispatched events becomes deliveries in one statement
 * (atomic by itself, so no transaction around it: the relay runs this on every poll), and their
 * first attempts come back to be POSTed by the caller, in memory. No job is queued for a first
 * attempt: the outbox is that queue (an event stays in it until a dispatcher claims it), and a
 * delivery whose dispatcher dies before recording it stays pending, so the stalled-delivery
 * sweep queues it again. Retries and deferrals are pg-boss jobs.
 */
@injectable()
export class FanOutEvents {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { batchSize: number }): Promise<{ events: number; attempts: ClaimedAttempt[] }> {
    return this.repositories.webhookDeliveries.fanOut(input.batchSize, this.clock.now());
  }
}
