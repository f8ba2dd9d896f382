import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, type Topic } from '../ports';
import { checkedTopic, type TopicInput } from './topic-rules';

/** docs/topics.md, "The API": a new topic, placed after the channel's last unless `position` says. */
@injectable()
export class CreateTopic {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: TopicInput): Promise<Topic> {
    return this.repositories.topics.create(principal.channelId, checkedTopic(null, input), this.clock.now());
  }
}
