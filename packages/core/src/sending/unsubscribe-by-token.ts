import { machineAction, type MachineReason } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { recipientEvent, type TrackingRequest } from './tracked-recipient';
import { unsubscribeTarget } from './unsubscribe-target';

/**
 * The unsubscribe link and RFC 8058 one-click POST, of a broadcast or of a transactional: the
 * subscriber is unsubscribed (inactive, unsubscribed_at set), counted for the broadcast whose
 * link it was, and subscriber.unsubscribed is emitted, once: repeating it changes nothing.
 * A one-click request (`request` given) that the machine rules flag changes nothing and says
 * why (`held`): the page then asks a person to press its button (docs/engagement.md).
 */
@injectable()
export class UnsubscribeByToken {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** null for an unknown token; `changed` false when already unsubscribed or held. */
  async execute(input: { token: string; request?: TrackingRequest }): Promise<{ email: string; changed: boolean; held?: MachineReason } | null> {
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await unsubscribeTarget(r, input.token);
      if (t === null) return null;
      if (input.request !== undefined) {
        const held = machineAction({ ...input.request, deliveredAt: t.recipient?.deliveredAt ?? null, at });
        if (held !== null) return { email: t.subscriber.email, changed: false, held };
      }
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
