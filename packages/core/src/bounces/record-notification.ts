import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { ReputationGuard } from '../reputation/reputation-guard';
import { guardAfter, recordBounce, type BounceReport, type BounceResult, type GuardCount } from './record-bounce';

/** Accepted requests are remembered this long: past it, a receiver's freshness check refuses them anyway. */
export const REPLAY_MEMORY_MS = 24 * 60 * 60 * 1000;

export interface NotificationResult {
  /** The request was accepted before (its replay key is known): nothing was recorded. */
  replayed: boolean;
  results: BounceResult[];
}

/**
 * A provider's verified request (docs/bounces.md): its replay key is remembered and its reports
 * recorded in one transaction, so a request is recorded whole or not at all, and a replay (even
 * one racing the original) records nothing.
 */
@injectable()
export class RecordNotification {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(ReputationGuard) private readonly guard: ReputationGuard,
  ) {}

  async execute(input: { source: string; replayKey: string | null; reports: readonly BounceReport[] }): Promise<NotificationResult> {
    const at = this.clock.now();
    const counted: GuardCount[] = [];
    const answer = await this.transactor.run(async (r) => {
      if (input.replayKey !== null) {
        const first = await r.bounces.firstSeen(input.source, input.replayKey, at, new Date(at.getTime() - REPLAY_MEMORY_MS));
        if (!first) return { replayed: true, results: [] };
      }
      const results: BounceResult[] = [];
      for (const report of input.reports) results.push(await recordBounce(r, report, at, counted));
      return { replayed: false, results };
    });
    await guardAfter(this.guard, counted);
    return answer;
  }
}
