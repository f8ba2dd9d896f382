import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, type ClaimedAttempt } from '../ports';

/**
 * The outbox relay's step: a batch of undispatched events becomes deliveries in one statement
 * (atomic by itself, so no transaction around it: the relay runs this on every poll), and their
 * first attempts come back to be POSTed by the caller, in memory. No job is queued for a first
 * attempt: the outbox is that queue (an event stays in it until a dispatcher claims it), and a
 * first attempt is leased to this dispatcher for a few seconds, renewed while held, so should it
 * die, another re-queues the attempt once the lease lapses (RequeueLapsedAttempts). Retries and
 * deferrals are pg-boss jobs.
 */
@injectable()
export class FanOutEvents {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { batchSize: number; leaseMs: number }): Promise<{ events: number; attempts: ClaimedAttempt[] }> {
    return this.repositories.webhookDeliveries.fanOut(input.batchSize, this.clock.now(), input.leaseMs);
  }
}
