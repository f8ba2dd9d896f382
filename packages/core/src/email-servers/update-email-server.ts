import { isRedactedPassword, movesConnection } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Transactor, type EmailServer, type EmailServerChanges } from '../ports';
import { checkEmailServer, EMAIL_SERVER_NOT_FOUND, SmtpAllowPlaintext } from './email-server-rules';

/**
 * Changes what the body carries. A password equal to the redacted form is a client sending back
 * what it read: the password stays as it is, unless the edit moves the connection (host, port or
 * TLS mode), which clears a password the same edit does not give again (docs/email-servers.md).
 */
@injectable()
export class UpdateEmailServer {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SmtpAllowPlaintext) private readonly allowPlaintext: SmtpAllowPlaintext,
  ) {}

  async execute(principal: Principal, input: { id: number; changes: EmailServerChanges }): Promise<EmailServer> {
    return this.transactor.run(async (repositories) => {
      const current = await repositories.emailServers.findById(principal.channelId, input.id);
      if (current === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
      const changes = { ...input.changes };
      if (typeof changes.password === 'string' && isRedactedPassword(changes.password, current.password)) delete changes.password;
      if (changes.password === undefined && current.password !== null && movesConnection(current, changes)) changes.password = null;
      if (changes.password === '') changes.password = null;
      checkEmailServer({ ...current, ...changes }, this.allowPlaintext);
      return (await repositories.emailServers.update(principal.channelId, input.id, changes))!;
    });
  }
}
