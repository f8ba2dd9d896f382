import { planSend, usableEmailServers } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Transactor, type Broadcast } from '../ports';
import { recordBroadcastStatus, writtenBroadcast } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';

export interface BroadcastStatusAnswer {
  id: number;
  message: string;
  status: Broadcast['status'];
}

/**
 * Spec: Send now. From draft or failed to scheduled, with broadcast.scheduled and the
 * 'broadcasts.send' job in the same transaction; the dispatcher does the rest. The row lock
 * serialises concurrent calls: the second one sees scheduled and is refused.
 */
@injectable()
export class SendBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return this.transactor.run(async (repositories) => {
      const current = await repositories.broadcasts.lock(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      const servers = usableEmailServers(current, await repositories.emailServers.listForChannel(caller.channelId));
      planSend({
        status: current.status,
        subject: current.subject,
        body: current.body,
        htmlBody: current.htmlBody,
        emailServerCount: servers.length,
      });
      // A failed broadcast sent again goes to those not yet reached (ports: prepareRetry).
      if (current.status === 'failed') await repositories.broadcasts.prepareRetry(current.id);
      const now = this.clock.now();
      const updated = writtenBroadcast(
        await repositories.broadcasts.update(
          current.id,
          { statuses: [current.status], version: current.version },
          { status: 'scheduled', pausedFrom: null },
          now,
        ),
      );
      await recordBroadcastStatus(repositories, updated, now);
      await repositories.jobs.send('broadcasts.send', { broadcastId: updated.id });
      return { id: updated.id, message: 'Broadcast is queued for sending', status: updated.status };
    });
  }
}
