import { receivesTopic, withTopicChoice } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, Transactor, type Subscriber, type Topic } from '../ports';
import { unsubscribeTarget } from '../sending/unsubscribe-target';
import { recordSubscriberEvents } from '../subscribers/subscriber-events';

/**
 * The preference page's link (docs/topics.md, "The preference page"): the email's own unsubscribe
 * token, under `/preferences/` instead of `/u/`, so it is signed as that link is and names the
 * same subscriber, and every email with an unsubscribe link has one.
 */
export function preferencesUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/preferences/${token}`;
}

/** The page's view: the visible topics with whether the subscriber receives each. */
export interface PreferencesView {
  email: string;
  /** Unsubscribed from everything: the choices are kept, nothing is sent. */
  unsubscribed: boolean;
  topics: Array<{ id: number; name: string; description: string | null; receives: boolean }>;
}

function view(subscriber: Subscriber, topics: readonly Topic[]): PreferencesView {
  return {
    email: subscriber.email,
    unsubscribed: !subscriber.isActive && subscriber.unsubscribedAt !== null,
    topics: topics
      .filter((t) => t.visibleOnPreferencePage)
      .map((t) => ({ id: t.id, name: t.name, description: t.description, receives: receivesTopic(t, subscriber) })),
  };
}

/** The subscriber a token names, unless it names no one or a redacted subscriber. */
async function subscriberOf(r: Repositories, token: string, forUpdate = false): Promise<Subscriber | null> {
  const target = await unsubscribeTarget(r, token);
  if (target === null) return null;
  const subscriber = await r.subscribers.findById(target.channelId, target.subscriber.id, { forUpdate });
  return subscriber === null || subscriber.redactedAt !== null ? null : subscriber;
}

/** GET: shows, changes nothing (link scanners follow GETs). null: the token names no one. */
@injectable()
export class GetPreferences {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(input: { token: string }): Promise<PreferencesView | null> {
    const subscriber = await subscriberOf(this.repositories, input.token);
    if (subscriber === null) return null;
    return view(subscriber, await this.repositories.topics.all(subscriber.channelId));
  }
}

/**
 * POST: each visible topic the page showed (`shown`) is received when in `receiving`. Only a topic
 * whose answer differs from what the subscriber receives now is written (so an unset value the
 * person left alone stays unset: Mailcast never writes a default). The row is locked and saved
 * with `subscriber.updated`; the trigger on subscribers adds `subscriber.preferences_updated`.
 */
@injectable()
export class SavePreferences {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string; shown: readonly number[]; receiving: readonly number[] }): Promise<(PreferencesView & { changed: boolean }) | null> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const subscriber = await subscriberOf(r, input.token, true);
      if (subscriber === null) return null;
      const topics = await r.topics.all(subscriber.channelId);
      const shown = new Set(input.shown);
      const receiving = new Set(input.receiving);
      let next = subscriber;
      for (const topic of topics) {
        if (!topic.visibleOnPreferencePage || !shown.has(topic.id)) continue;
        const wanted = receiving.has(topic.id);
        if (receivesTopic(topic, next) !== wanted) next = withTopicChoice(topic, next, wanted);
      }
      if (next === subscriber) return { ...view(subscriber, topics), changed: false };
      const saved = await r.subscribers.save(next, now);
      await recordSubscriberEvents(r, saved, ['subscriber.updated'], now);
      return { ...view(saved, topics), changed: true };
    });
  }
}
