import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type EmailServer } from '../ports';
import { EMAIL_SERVER_NOT_FOUND } from './email-server-rules';

@injectable()
export class GetEmailServer {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { id: number }): Promise<EmailServer> {
    const server = await this.repositories.emailServers.findById(principal.channelId, input.id);
    if (server === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
    return server;
  }
}
