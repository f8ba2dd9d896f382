import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Sequence, type SequenceCounts, type SequenceStep, type StepStatistics } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';

export interface SequenceView {
  sequence: Sequence;
  counts: SequenceCounts;
  /** With `includeSteps`: depth-first, each send_email step with its figures. */
  steps?: Array<SequenceStep & { statistics?: StepStatistics }>;
}

@injectable()
export class GetSequence {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number; includeSteps: boolean }): Promise<SequenceView> {
    const r = this.repositories;
    const sequence = await sequenceOrNotFound(r, principal.channelId, input.id);
    const counts = (await r.sequences.counts([sequence.id])).get(sequence.id) ?? { subscribersCount: 0, stepsCount: 0 };
    if (!input.includeSteps) return { sequence, counts };
    return { sequence, counts, steps: await withStatistics(r, await r.sequences.steps(sequence.id)) };
  }
}

/** send_email steps carry their figures; others are as they are. */
export async function withStatistics(r: Repositories, steps: SequenceStep[]): Promise<Array<SequenceStep & { statistics?: StepStatistics }>> {
  const emails = steps.filter((s) => s.action === 'send_email').map((s) => s.id);
  const figures = emails.length === 0 ? new Map<number, StepStatistics>() : await r.sequences.stepStatistics(emails);
  return steps.map((s) => (figures.has(s.id) ? { ...s, statistics: figures.get(s.id)! } : s));
}
