import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, Transactor } from '../ports';
import { SendingOptions } from './sending-options';

/**
 * A dispatcher killed mid-send leaves its job active and its claims leased, and pg-boss does
 * not retry (retryLimit 0). Every dispatcher runs this now and then: a broadcast that has work
 * and nobody holding a live lease gets a fresh `broadcasts.send` job. A spare job is harmless.
 */
@injectable()
export class RecoverStalledBroadcasts {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(SendingOptions) private readonly options: SendingOptions,
  ) {}

  async execute(): Promise<number[]> {
    const now = this.clock.now();
    // Queueing holds no lease: it counts as stalled once it has not moved for two lease spans.
    const staleBefore = new Date(now.getTime() - 2 * this.options.leaseMs);
    const ids = await this.repositories.recipients.stalledBroadcasts(now, staleBefore);
    if (ids.length > 0) {
      await this.transactor.run(async (r) => {
        for (const broadcastId of ids) await r.jobs.send('broadcasts.send', { broadcastId });
      });
    }
    return ids;
  }
}
