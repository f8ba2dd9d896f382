import { resolveReputationGuard, reputationVerdict, type ReputationVerdict } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, StepReputationStore } from '../ports';
import { figures, since } from './reputation-guard';

/**
 * The reputation guard for sequence email steps (docs/reputation-guard.md, "Sequence email
 * steps"): the channel's limits over the step's own counters (emails handed over, hard bounces),
 * judged after the runtime commits a group that had a hard bounce, or while the step's bounces
 * wait for `min_sent`. Crossing one pauses the step (enrolments reaching it are parked) and emits
 * `broadcast.paused` with the figures, naming the sequence and step instead of a broadcast.
 */
@injectable()
export class SequenceStepGuard {
  constructor(
    @inject(StepReputationStore) private readonly store: StepReputationStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The verdict when it paused the step, and whether its bounces wait for `min_sent` to be judged. */
  async check(stepId: number): Promise<{ verdict: ReputationVerdict | null; pending: boolean }> {
    const standing = await this.store.stepStanding(stepId);
    if (standing === null || standing.paused) return { verdict: null, pending: false };
    const settings = resolveReputationGuard(standing.settings);
    // After a resume, only what came after the guard's pause is judged, as for broadcasts.
    const counts = since(standing.counts, standing.baseline);
    const verdict = reputationVerdict(settings, counts);
    if (verdict === null) {
      return { verdict: null, pending: settings.enabled && counts.sent < settings.min_sent && counts.hard_bounces + counts.complaints > 0 };
    }
    const data = {
      broadcast_id: null,
      receipted_type: 'SequenceStep',
      sequence_id: standing.sequenceId,
      sequence_step_id: stepId,
      status: 'paused',
      pause_reason: verdict.reason,
      ...figures(verdict),
    };
    const paused = await this.store.pauseStep(stepId, verdict.reason, standing.counts, data, this.clock.now());
    return { verdict: paused ? verdict : null, pending: false };
  }
}
