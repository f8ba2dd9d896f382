import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor, type Topic } from '../ports';
import { checkedTopic, topicOrNotFound, type TopicInput } from './topic-rules';

/** Only the fields given change; subscribers' data is never touched (docs/topics.md). */
@injectable()
export class UpdateTopic {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: TopicInput & { id: number }): Promise<Topic> {
    const { id, ...changes } = input;
    return this.transactor.run(async (r) => {
      const current = await topicOrNotFound(r, principal.channelId, id, true);
      const next = checkedTopic(current, changes);
      return r.topics.update(principal.channelId, id, { ...next, position: next.position ?? current.position }, this.clock.now());
    });
  }
}
