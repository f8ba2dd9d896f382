import { nextAttempt, type AttemptExhaustedEventData } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Transactor, WebhookRetrySchedule } from '../ports';
import type { AttemptOutcome } from './send-webhook-attempt';
import { truncate } from './stored-response-body';

/**
 * A non-2xx answer or no answer. The domain's schedule decides: the next attempt is recorded and
 * queued (startAfter) in one transaction; or the delivery is failed for good and one
 * message.attempt.exhausted event enters the outbox, unless the delivery was itself of that
 * type, which is never retried and emits nothing further (spec: Event types).
 */
@injectable()
export class RecordWebhookFailure {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(WebhookRetrySchedule) private readonly schedule: WebhookRetrySchedule,
  ) {}

  async execute(outcome: AttemptOutcome): Promise<{ kind: 'retry'; at: Date } | { kind: 'exhausted' } | { kind: 'cancelled' }> {
    const { attempt, result } = outcome;
    const status = result.kind === 'response' ? result.status : null;
    const error = result.kind === 'response' ? `HTTP ${result.status}` : `${result.reason}: ${result.message}`;
    const neverRetried = attempt.eventType === 'message.attempt.exhausted';
    const next = neverRetried
      ? ({ kind: 'exhausted' } as const)
      : nextAttempt({
          attemptNumber: attempt.attempt,
          retriesToAttempt: attempt.retriesToAttempt,
          failedAt: outcome.finishedAt,
          schedule: this.schedule,
        });
    return this.transactor.run(async (r) => {
      const current = await r.webhookDeliveries.recordFailure({
        deliveryId: attempt.deliveryId,
        endpointId: attempt.endpointId,
        attempt: attempt.attempt,
        status,
        body: result.kind === 'response' ? truncate(result.body) : null,
        error,
        attemptedAt: outcome.attemptedAt,
        finishedAt: outcome.finishedAt,
        nextRetryAt: next.kind === 'retry' ? next.at : null,
      });
      if (!current) return { kind: 'cancelled' } as const;
      if (next.kind === 'retry') {
        await r.jobs.send(
          'webhooks.deliver',
          { deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, attempt: attempt.attempt + 1 },
          { startAfter: next.at },
        );
      } else if (!neverRetried) {
        const data: AttemptExhaustedEventData = {
          delivery_id: attempt.deliveryId,
          webhook_endpoint_id: attempt.endpointId,
          attempts: attempt.attempt,
          last_error: error,
          first_attempted_at: (attempt.firstAttemptAt ?? outcome.attemptedAt).toISOString(),
          last_attempted_at: outcome.attemptedAt.toISOString(),
          original_event_type: attempt.eventType,
        };
        await r.outbox.record({ channelId: attempt.channelId, type: 'message.attempt.exhausted', data, createdAt: outcome.finishedAt });
      }
      return next.kind === 'retry' ? ({ kind: 'retry', at: next.at } as const) : ({ kind: 'exhausted' } as const);
    });
  }
}
