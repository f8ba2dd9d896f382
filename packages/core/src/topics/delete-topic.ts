import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Transactor } from '../ports';
import { topicOrNotFound } from './topic-rules';

/**
 * docs/topics.md, "Deleting a topic": refused while something would still send by it or ask for
 * it (an unsent broadcast, a sequence, a form's topic block); subscribers' data stays as it is.
 */
@injectable()
export class DeleteTopic {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  execute(principal: Principal, input: { id: number }): Promise<void> {
    return this.transactor.run(async (r) => {
      await topicOrNotFound(r, principal.channelId, input.id, true);
      const used = await r.topics.usage(principal.channelId, input.id);
      const users = [
        ...(used.broadcasts.length > 0 ? [`broadcasts not yet sent (${used.broadcasts.join(', ')})`] : []),
        ...(used.sequences.length > 0 ? [`sequences (${used.sequences.join(', ')})`] : []),
        ...(used.formBlocks.length > 0 ? [`opt-in form blocks (${used.formBlocks.join(', ')})`] : []),
      ];
      if (users.length > 0) throw new ValidationError(`Topic is used by ${users.join(', ')}`);
      await r.topics.delete(principal.channelId, input.id);
    });
  }
}
