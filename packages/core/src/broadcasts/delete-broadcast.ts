import { assertCanDelete } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Transactor } from '../ports';
import { writtenBroadcast } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';

/** Spec: Delete, only in draft or future_scheduled. A pending due job finds no row and does nothing. */
@injectable()
export class DeleteBroadcast {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  execute(caller: Principal, input: { id: number }): Promise<{ message: string }> {
    return this.transactor.run(async (repositories) => {
      const current = await repositories.broadcasts.lock(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      assertCanDelete(current.status);
      const deleted = await repositories.broadcasts.delete(caller.channelId, current.id, [current.status]);
      writtenBroadcast(deleted ? current : null);
      return { message: 'Broadcast deleted successfully' };
    });
  }
}
