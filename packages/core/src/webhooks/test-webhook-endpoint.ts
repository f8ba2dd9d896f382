import type { EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, Transactor } from '../ports';
import { WEBHOOK_ENDPOINT_NOT_FOUND } from './webhook-endpoint-rules';

export const TEST_EVENT_NOT_SUBSCRIBED = 'Event type is not subscribed by this endpoint';

/** What a test event carries: enough for a receiver to see which endpoint and when. */
export function testEventData(endpointId: number, now: Date): Record<string, unknown> {
  return { message: 'This is a test webhook from Mailcast', webhook_endpoint_id: endpointId, sent_at: now.toISOString() };
}

@injectable()
export class TestWebhookEndpoint {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * One event and one delivery for this endpoint only (docs/webhooks.md: test.webhook always, else a
   * subscribed type), queued like any delivery and retried like any other.
   */
  async execute(principal: Principal, input: { id: number; eventType?: string }): Promise<{ eventType: EventType; deliveryId: number }> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const endpoint = await r.webhookEndpoints.findById(principal.channelId, input.id);
      if (endpoint === null) throw new NotFoundError(WEBHOOK_ENDPOINT_NOT_FOUND);
      const type = (input.eventType ?? 'test.webhook') as EventType;
      if (type !== 'test.webhook' && !endpoint.eventTypes.includes(type)) throw new ValidationError(TEST_EVENT_NOT_SUBSCRIBED);
      const { delivery } = await r.webhookDeliveries.createTestDelivery({
        channelId: principal.channelId,
        endpointId: endpoint.id,
        type,
        data: testEventData(endpoint.id, now),
        now,
      });
      await r.jobs.send('webhooks.deliver', { deliveryId: delivery.id, endpointId: endpoint.id, attempt: 1 });
      return { eventType: type, deliveryId: delivery.id };
    });
  }
}
