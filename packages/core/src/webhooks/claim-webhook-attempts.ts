import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, type ClaimedAttempt, type DeliveryJobRef } from '../ports';

/** Turns delivery jobs into attempts; stale, duplicate and cancelled ones come back as nothing. */
@injectable()
export class ClaimWebhookAttempts {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(input: { jobs: readonly DeliveryJobRef[] }): Promise<ClaimedAttempt[]> {
    if (input.jobs.length === 0) return Promise.resolve([]);
    return this.repositories.webhookDeliveries.claim(input.jobs, this.clock.now());
  }
}
