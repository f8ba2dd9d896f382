import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Transactor } from '../ports';
import { EMAIL_SERVER_NOT_FOUND } from './email-server-rules';

/** A server that a scheduled, sending or paused broadcast names stays until that broadcast is done. */
@injectable()
export class DeleteEmailServer {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  async execute(principal: Principal, input: { id: number }): Promise<void> {
    await this.transactor.run(async (repositories) => {
      if ((await repositories.emailServers.findById(principal.channelId, input.id)) === null) {
        throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
      }
      if (await repositories.emailServers.namedByPendingBroadcast(principal.channelId, input.id)) {
        throw new ValidationError('Email server is used by a scheduled or sending broadcast');
      }
      await repositories.emailServers.delete(principal.channelId, input.id);
    });
  }
}
