import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import type { Broadcast, BroadcastChanges, Repositories, Transactor } from '../ports';
import { recordBroadcastStatus, writtenBroadcast } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/**
 * The shared shape of pause, resume and abort (docs/broadcasts-and-sending.md: routes beyond the spec): lock, let
 * the domain decide the move, write it with broadcast.<new status>, and optionally enqueue.
 * Sending jobs poll the status, so pause and abort stop them promptly (docs/sending-reliability.md).
 */
export async function moveBroadcast(
  transactor: Transactor,
  now: Date,
  caller: Principal,
  id: number,
  plan: (current: Broadcast) => BroadcastChanges,
  message: string,
  after?: (repositories: Repositories, updated: Broadcast) => Promise<void>,
): Promise<BroadcastStatusAnswer> {
  return transactor.run(async (repositories) => {
    const current = await repositories.broadcasts.lock(caller.channelId, id);
    if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
    const changes = plan(current);
    const updated = writtenBroadcast(await repositories.broadcasts.update(current.id, { statuses: [current.status], version: current.version }, changes, now));
    await recordBroadcastStatus(repositories, updated, now);
    await after?.(repositories, updated);
    return { id: updated.id, message, status: updated.status };
  });
}
