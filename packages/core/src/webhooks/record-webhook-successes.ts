import { inject, injectable } from 'tsyringe';
import { Repositories } from '../ports';
import type { AttemptOutcome } from './send-webhook-attempt';
import { truncate } from './stored-response-body';

/** 2xx answers, many at a time: one statement for the lot keeps up with a fast receiver. */
@injectable()
export class RecordWebhookSuccesses {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(outcomes: readonly AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.repositories.webhookDeliveries.recordSuccesses(
      outcomes.map((o) => ({
        deliveryId: o.attempt.deliveryId,
        endpointId: o.attempt.endpointId,
        attempt: o.attempt.attempt,
        status: o.result.kind === 'response' ? o.result.status : 0,
        body: o.result.kind === 'response' ? truncate(o.result.body) : '',
        attemptedAt: o.attemptedAt,
        finishedAt: o.finishedAt,
      })),
    );
  }
}
