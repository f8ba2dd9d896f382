import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, Templates, Transactor, WebhookDestinations, type SequenceStep } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';
import { checkedStepSettings, stepOrNotFound, type StepInput } from './step-rules';

/**
 * The label and the action's fields; the fields not given keep their values. A step's action
 * and place are fixed here: a different action is a new step, a new place is a move. Edits
 * reach enrolments that arrive later (docs/sequences.md).
 */
@injectable()
export class UpdateStep {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Templates) private readonly templates: Templates,
    @inject(WebhookDestinations) private readonly destinations: WebhookDestinations,
  ) {}

  execute(principal: Principal, input: StepInput & { sequenceId: number; stepId: number }): Promise<SequenceStep> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId, true);
      const step = stepOrNotFound(await r.sequences.steps(sequence.id), input.stepId);
      const fixed: Record<string, string[]> = {};
      if (input.action !== undefined && input.action !== step.action) fixed.action = ['cannot be changed: create a new step instead'];
      if (input.parentId !== undefined && input.parentId !== step.parentId) fixed.parent_id = ['cannot be changed: move the step instead'];
      if (Object.keys(fixed).length > 0) throw ValidationError.forFields(fixed);
      if (step.action === 'entry_point' || step.action === 'condition_branch')
        throw ValidationError.forFields({ action: [`${step.action} steps cannot be changed`] });
      if (input.paused !== undefined && step.action !== 'send_email') throw ValidationError.forFields({ paused: ['only send_email steps can be paused'] });
      const settings = await checkedStepSettings(
        r,
        { templates: this.templates, destinations: this.destinations },
        sequence,
        step.action,
        input.fields,
        step.settings,
      );
      const label = input.label === undefined ? step.label : input.label;
      await r.sequences.updateStep(step.id, { label, settings }, now);
      // docs/reputation-guard.md, "Sequence email steps": a person pauses or resumes the step.
      const pausing = input.paused !== undefined && input.paused !== (step.pausedAt != null);
      if (pausing) await r.sequences.setStepPaused(step.id, input.paused!, now);
      const paused = pausing ? { pausedAt: input.paused ? now : null, pauseReason: null } : {};
      return { ...step, label, settings, ...paused, updatedAt: now };
    });
  }
}
