import { trackingTokenRecipient, verifyTrackingToken } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, Transactor, type TrackedRecipient } from '../ports';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { emailEventData } from './event-data';

/** The recipient a token names, if the token is well-formed and its MAC verifies. */
async function tracked(r: Repositories, token: string): Promise<TrackedRecipient | null> {
  const id = trackingTokenRecipient(token);
  if (id === null) return null;
  const t = await r.recipients.findTracked(id);
  if (t === null || t.secret === null || !verifyTrackingToken(t.secret, token)) return null;
  return t;
}

function facts(t: TrackedRecipient) {
  return {
    recipientId: t.id,
    broadcastId: t.broadcastId,
    email: t.subscriber.email,
    messageId: t.messageId,
    delivered: t.deliveredAt !== null,
    openedAt: t.openedAt,
    clickedAt: t.clickedAt,
  };
}

/** The open pixel: every load is an open (email.opened), recorded with its time. */
@injectable()
export class RecordOpen {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string }): Promise<boolean> {
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await tracked(r, input.token);
      if (t === null) return false;
      await r.recipients.markEngaged(t.id, 'opened', at);
      await r.emailEvents.record({
        channelId: t.channelId,
        broadcastId: t.broadcastId,
        recipientId: t.id,
        subscriberId: t.subscriber.id,
        kind: 'opened',
        occurredAt: at,
      });
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.opened',
        data: emailEventData({ ...facts(t), openedAt: t.openedAt ?? at }),
        createdAt: at,
      });
      return true;
    });
  }
}

/**
 * A tracked link: the recipient's token and the link's identifier name the stored URL, and
 * only that URL is ever the redirect target (never one taken from the request).
 */
@injectable()
export class RecordClick {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The original URL, or null when the token or link is unknown. */
  async execute(input: { token: string; link: string }): Promise<string | null> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(input.link)) return null;
    const at = this.clock.now();
    return this.transactor.run(async (r) => {
      const t = await tracked(r, input.token);
      if (t === null) return null;
      const link = await r.recipients.findLink(t.broadcastId, input.link);
      if (link === null) return null;
      await r.recipients.markEngaged(t.id, 'clicked', at);
      await r.emailEvents.record({
        channelId: t.channelId,
        broadcastId: t.broadcastId,
        recipientId: t.id,
        subscriberId: t.subscriber.id,
        kind: 'clicked',
        linkId: link.id,
        occurredAt: at,
        data: { url: link.url },
      });
      await r.outbox.record({
        channelId: t.channelId,
        type: 'email.clicked',
        data: emailEventData({ ...facts(t), clickedAt: t.clickedAt ?? at }),
        createdAt: at,
      });
      return link.url;
    });
  }
}

/** What the unsubscribe page shows before the recipient confirms. */
@injectable()
export class GetUnsubscribeTarget {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(input: { token: string }): Promise<{ email: string; unsubscribed: boolean } | null> {
    const t = await tracked(this.repositories, input.token);
    if (t === null) return null;
    return { email: t.subscriber.email, unsubscribed: t.subscriber.unsubscribedAt !== null && !t.subscriber.isActive };
  }
}

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
      await r.emailEvents.record({
        channelId: t.channelId,
        broadcastId: t.broadcastId,
        recipientId: t.id,
        subscriberId: t.subscriber.id,
        kind: 'unsubscribed',
        occurredAt: at,
      });
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
