import { deleteStep, treeChanges } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';
import { stepOrNotFound, treeOf } from './step-rules';

/**
 * Deletes a step (a condition with its false branch) and moves the enrolments waiting on what
 * was removed to the step now in its place, due at once (docs/sequences.md, "The step tree").
 */
@injectable()
export class DeleteStep {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: { sequenceId: number; stepId: number }): Promise<{ replacement: number | null; moved: number }> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId, true);
      const steps = await r.sequences.steps(sequence.id);
      stepOrNotFound(steps, input.stepId);
      const before = treeOf(steps);
      const { tree, removed, replacement } = deleteStep(before, input.stepId);
      const moved = await r.sequences.continueAt(removed, replacement, now);
      await r.sequences.reshape(treeChanges(before, tree), removed, now);
      return { replacement, moved };
    });
  }
}
