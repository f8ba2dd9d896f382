import { scheduledStart } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor } from '../ports';
import { beginScheduledSend } from './start-due-broadcast';

/** How many due broadcasts one sweep transaction moves. */
const SWEEP_BATCH = 100;

/** How far ahead of its scheduled_send_at a time-zone broadcast's window can begin (UTC+14 to UTC−12). */
const TIMEZONE_LEAD_MS = 26 * 3_600_000;

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
      if (batch.length < SWEEP_BATCH) break;
    }
    ids.push(...(await this.startTimezoneWindows(now)));
    return ids;
  }

  /**
   * Time-zone broadcasts start when their window begins, before scheduled_send_at
   * (docs/broadcasts-and-sending.md): the window's start is the domain's arithmetic, so the
   * candidates are judged here and each moved by a conditional write on its version (once).
   */
  private async startTimezoneWindows(now: Date): Promise<number[]> {
    return this.transactor.run(async (repositories) => {
      const candidates = await repositories.broadcasts.timezoneCandidates(now, new Date(now.getTime() + TIMEZONE_LEAD_MS), SWEEP_BATCH);
      const moved: number[] = [];
      for (const b of candidates) {
        if (b.scheduledSendAt === null || scheduledStart({ ...b, scheduledSendAt: b.scheduledSendAt }) > now) continue;
        const row = await repositories.broadcasts.update(b.id, { statuses: ['future_scheduled'], version: b.version }, { status: 'scheduled' }, now);
        if (row === null) continue;
        await beginScheduledSend(repositories, row, now);
        moved.push(row.id);
      }
      return moved;
    });
  }
}
