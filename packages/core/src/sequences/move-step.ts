import { moveStep, treeChanges } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, Transactor, type SequenceStep } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';
import { stepOrNotFound, treeOf } from './step-rules';

/** The step (a condition with both branches) goes under `underId` (docs/sequences.md, "The step tree"). */
@injectable()
export class MoveStep {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: { sequenceId: number; stepId: number; underId: number | undefined }): Promise<SequenceStep> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId, true);
      const steps = await r.sequences.steps(sequence.id);
      const step = stepOrNotFound(steps, input.stepId);
      if (input.underId === undefined) throw ValidationError.forFields({ under_id: ["can't be blank"] });
      const before = treeOf(steps);
      const after = moveStep(before, step.id, input.underId);
      await r.sequences.reshape(treeChanges(before, after), [], now);
      return { ...step, parentId: input.underId, position: after.positions().get(step.id)!, updatedAt: now };
    });
  }
}
