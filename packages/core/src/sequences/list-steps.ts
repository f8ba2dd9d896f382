import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type SequenceStep, type StepStatistics } from '../ports';
import { withStatistics } from './get-sequence';
import { sequenceOrNotFound } from './sequence-rules';
import { stepOrNotFound } from './step-rules';

type StepView = SequenceStep & { statistics?: StepStatistics };

/** Every step of the sequence, depth-first, send_email steps with their figures. */
@injectable()
export class ListSteps {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { sequenceId: number }): Promise<StepView[]> {
    const sequence = await sequenceOrNotFound(this.repositories, principal.channelId, input.sequenceId);
    return withStatistics(this.repositories, await this.repositories.sequences.steps(sequence.id));
  }
}

@injectable()
export class GetStep {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { sequenceId: number; stepId: number }): Promise<StepView> {
    const sequence = await sequenceOrNotFound(this.repositories, principal.channelId, input.sequenceId);
    const step = stepOrNotFound(await this.repositories.sequences.steps(sequence.id), input.stepId);
    return (await withStatistics(this.repositories, [step]))[0]!;
  }
}
