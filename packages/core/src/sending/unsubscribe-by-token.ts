import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { recipientEvent, tracked } from './tracked-recipient';

/**
 * The unsubscribe link and RFC 8058 one-click POST: the subscriber is unsubscribed (inactive,
 * unsubscribed_at set), counted for this broadcast, and subscriber.unsubscribed is emitted, once:
 * repeating it changes nothing.
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
      const t = await tracked(r, input.token);
      if (t === null) return null;
      const subscriber = await r.recipients.unsubscribeSubscriber(t.subscriber.id, at);
      if (subscriber === null) return { email: t.subscriber.email, changed: false };
      await r.emailEvents.record(recipientEvent(t, 'unsubscribed', at));
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
