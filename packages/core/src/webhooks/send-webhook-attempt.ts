import { signedHeaders, type WebhookEnvelope } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, WebhookSender, type ClaimedAttempt, type WebhookResult } from '../ports';

export interface AttemptOutcome {
  attempt: ClaimedAttempt;
  result: WebhookResult;
  attemptedAt: Date;
  finishedAt: Date;
}

/** Spec "Payload envelope". The string returned is the body: signed and sent byte for byte. */
export function webhookBody(attempt: Pick<ClaimedAttempt, 'eventId' | 'eventType' | 'eventCreatedAt' | 'eventData'>): string {
  const envelope: WebhookEnvelope<Record<string, unknown>> = {
    id: attempt.eventId,
    type: attempt.eventType,
    created_at: attempt.eventCreatedAt.toISOString(),
    data: attempt.eventData,
  };
  return JSON.stringify(envelope);
}

/**
 * One POST: the id header is the event id (stable across retries, receivers deduplicate by it);
 * the timestamp and signature are fresh for each attempt.
 */
@injectable()
export class SendWebhookAttempt {
  constructor(
    @inject(WebhookSender) private readonly sender: WebhookSender,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(attempt: ClaimedAttempt): Promise<AttemptOutcome> {
    const attemptedAt = this.clock.now();
    const body = webhookBody(attempt);
    const headers = signedHeaders({
      eventId: attempt.eventId,
      secret: attempt.secret,
      timestamp: Math.floor(attemptedAt.getTime() / 1000),
      rawBody: body,
    });
    const result = await this.sender.post({ url: attempt.url, body, headers });
    return { attempt, result, attemptedAt, finishedAt: this.clock.now() };
  }
}

export function isSuccess(result: WebhookResult): boolean {
  return result.kind === 'response' && result.status >= 200 && result.status < 300;
}
