import { checkParent, defaultParent, insertStep, treeChanges } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Templates, Transactor, WebhookDestinations, type SequenceStep } from '../ports';
import { sequenceOrNotFound } from './sequence-rules';
import { checkedStepSettings, creatableAction, treeOf, type StepInput } from './step-rules';

/**
 * A step under `parentId`, by default the end of the main line (docs/sequences.md, "The step
 * tree"): the parent's former child moves under it. A condition comes with its two branches.
 */
@injectable()
export class CreateStep {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Templates) private readonly templates: Templates,
    @inject(WebhookDestinations) private readonly destinations: WebhookDestinations,
  ) {}

  execute(principal: Principal, input: StepInput & { sequenceId: number }): Promise<SequenceStep> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      // The sequence's row is the tree's lock: edits of one tree take turns.
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId, true);
      const action = creatableAction(input.action);
      const steps = await r.sequences.steps(sequence.id);
      const before = treeOf(steps);
      const parentId = input.parentId ?? defaultParent(before);
      checkParent(before, parentId, 'parent_id');
      const settings = await checkedStepSettings(r, { templates: this.templates, destinations: this.destinations }, sequence, action, input.fields);
      const base = { sequenceId: sequence.id, parentId, branch: null, position: steps.length, settings: {} };
      const step = await r.sequences.insertStep({ ...base, action, label: input.label ?? null, settings }, now);
      const added = [step];
      if (action === 'condition') {
        for (const side of [true, false]) {
          added.push(await r.sequences.insertStep({ ...base, parentId: step.id, action: 'condition_branch', label: null, branch: side }, now));
        }
      }
      const after = insertStep(
        before,
        parentId,
        added.map((s) => ({ id: s.id, parentId: s.parentId, action: s.action, branch: s.branch })),
      );
      await r.sequences.reshape(treeChanges(before, after), [], now);
      return { ...step, parentId, position: after.positions().get(step.id)! };
    });
  }
}
