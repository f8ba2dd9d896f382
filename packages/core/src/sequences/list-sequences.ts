import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Page, type Sequence, type SequenceCounts } from '../ports';

/** Most recently created first, each with its counts. */
@injectable()
export class ListSequences {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, page: Page): Promise<{ items: Array<{ sequence: Sequence; counts: SequenceCounts }>; total: number }> {
    const { items, total } = await this.repositories.sequences.list(principal.channelId, page);
    const counts = await this.repositories.sequences.counts(items.map((s) => s.id));
    return { items: items.map((sequence) => ({ sequence, counts: counts.get(sequence.id) ?? { subscribersCount: 0, stepsCount: 0 } })), total };
  }
}
