import { confirm, resubscribe } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { performFormActions } from '../forms/form-actions';
import { Clock, RandomSource, Transactor, type Subscriber } from '../ports';
import { lockByToken } from './confirmation-link';
import { recordSubscriberEvents } from './subscriber-events';

/** What the public page tells the recipient; none of these is an error to them. */
export type ConfirmationOutcome =
  | { kind: 'confirmed'; subscriber: Subscriber; redirectUrl: string | null }
  | { kind: 'already_confirmed'; subscriber: Subscriber }
  | { kind: 'superseded' }
  | { kind: 'unknown' };

/**
 * The recipient opened the double opt-in link (docs/subscribers.md: opening it sets confirmed_at). A link
 * of an already confirmed subscriber changes nothing; a link replaced by a newer request is stale.
 */
@injectable()
export class ConfirmSubscription {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  execute(input: { token: string }): Promise<ConfirmationOutcome> {
    const now = this.clock.now();
    return this.transactor.run(async (repositories) => {
      const found = await lockByToken(repositories, input.token);
      if (found === null) return { kind: 'unknown' };
      const { confirmation, subscriber } = found;
      if (subscriber.confirmedAt !== null) return { kind: 'already_confirmed', subscriber };
      if (confirmation.supersededAt !== null) return { kind: 'superseded' };
      // What opt-in forms held for this confirmation (docs/opt-in-forms.md, "Submission processing"):
      // their tags now, an unsubscribed address subscribed again, sequences and welcome below.
      const held = await repositories.formSubmissions.takePending(subscriber.id);
      let next = confirm(subscriber, now);
      if (held.length > 0) next = { ...(next.isActive ? next : resubscribe(next)), tags: [...new Set([...next.tags, ...held.flatMap((h) => h.tags)])] };
      const saved = await repositories.subscribers.save(next, now);
      await repositories.subscriberConfirmations.markConfirmed(confirmation.id, now);
      await recordSubscriberEvents(repositories, saved, ['subscriber.subscribed'], now);
      // Transactionals sent with double opt-in were held for this (docs/transactionals.md).
      for (const transactionalId of await repositories.transactionals.releaseAwaiting(saved.id, now)) {
        await repositories.jobs.send('transactionals.send', { transactionalId }, { wake: true });
      }
      for (const actions of held) await performFormActions(repositories, this.random, saved, actions, now);
      // The newest held form that names a page to go to next sends the person there
      // (docs/opt-in-forms.md, "After confirming").
      const redirectUrl = held.map((h) => h.confirmationRedirectUrl).findLast((url) => url !== null) ?? null;
      return { kind: 'confirmed', subscriber: saved, redirectUrl };
    });
  }
}
