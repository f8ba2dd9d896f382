import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Page, type Topic, type TopicCounts } from '../ports';
import { topicOrNotFound } from './topic-rules';

/** A topic with its counts, computed by the SQL topic_value and receives_topic (docs/topics.md). */
@injectable()
export class GetTopic {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number }): Promise<{ topic: Topic; counts: TopicCounts }> {
    const topic = await topicOrNotFound(this.repositories, principal.channelId, input.id);
    return { topic, counts: await this.repositories.topics.counts(topic) };
  }
}

/** By position, then id. */
@injectable()
export class ListTopics {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(principal: Principal, page: Page): Promise<{ items: Topic[]; total: number }> {
    return this.repositories.topics.list(principal.channelId, page);
  }
}

/** Every topic of the caller's channel: what a subscriber answer's `topics` shows (one read per request). */
@injectable()
export class ChannelTopics {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(principal: Principal): Promise<Topic[]> {
    return this.repositories.topics.all(principal.channelId);
  }
}
