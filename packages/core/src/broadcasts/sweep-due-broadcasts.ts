import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { beginScheduledSend } from './start-due-broadcast';

/** How many due broadcasts one sweep transaction moves. */
const SWEEP_BATCH = 100;

/**
 * The safety net for a lost due job (every dispatcher's sweep timer): moves every future_scheduled
 * broadcast whose time has passed. The conditional UPDATE with SKIP LOCKED moves each once,
 * however many dispatchers sweep at the same time.
 */
@injectable()
export class SweepDueBroadcasts {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<number[]> {
    const now = this.clock.now();
    const ids: number[] = [];
    for (;;) {
      const batch = await this.transactor.run(async (repositories) => {
        const moved = await repositories.broadcasts.startDue(now, SWEEP_BATCH);
        for (const b of moved) await beginScheduledSend(repositories, b, now);
        return moved.map((b) => b.id);
      });
      ids.push(...batch);
      if (batch.length < SWEEP_BATCH) return ids;
    }
  }
}
