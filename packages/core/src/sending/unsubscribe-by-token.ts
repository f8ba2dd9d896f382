import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { recipientEvent } from './tracked-recipient';
import { unsubscribeTarget } from './unsubscribe-target';

/**
 * The unsubscribe link and RFC 8058 one-click POST, of a broadcast or of a transactional: the
 * subscriber is unsubscribed (inactive, unsubscribed_at set), counted for the broadcast whose
 * link it was, and subscriber.unsubscribed is emitted, once: repeating it changes nothing.
 */
@injectable()
export class UnsubscribeByToken {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** null for an unknown token; `changed` false when already unsubscribed. */
  async execute(input: { token: string }): Promise<{ email: string; changed: boolean } | null> {
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await unsubscribeTarget(r, input.token);
      if (t === null) return null;
      const subscriber = await r.recipients.unsubscribeSubscriber(t.subscriber.id, at);
      if (subscriber === null) return { email: t.subscriber.email, changed: false };
      if (t.recipient !== null) await r.emailEvents.record(recipientEvent(t.recipient, 'unsubscribed', at));
      if (t.sequenceStep !== undefined) await r.sequences.recordUnsubscribe({ channelId: t.channelId, subscriberId: subscriber.id, ...t.sequenceStep }, at);
      await r.outbox.record({
        channelId: t.channelId,
        type: 'subscriber.unsubscribed',
        data: subscriberEventData(subscriber),
        createdAt: at,
      });
      return { email: subscriber.email, changed: true };
    });
  }
}
