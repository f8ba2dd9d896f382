import { isRedactedPassword, movesConnection } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, SmtpHostPolicy, Transactor, type EmailServer, type EmailServerChanges } from '../ports';
import { checkEmailServer, EMAIL_SERVER_NOT_FOUND, judgeHost, SmtpAllowPlaintext, type HostVerdict } from './email-server-rules';

/**
 * Changes what the body carries. A password equal to the redacted form is a client sending back
 * what it read: the password stays as it is, unless the edit moves the connection (host, port or
 * TLS mode), which clears a password the same edit does not give again (docs/email-servers.md).
 * A host or tls being written goes through the address policy ("Addresses").
 */
@injectable()
export class UpdateEmailServer {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SmtpAllowPlaintext) private readonly allowPlaintext: SmtpAllowPlaintext,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(SmtpHostPolicy) private readonly hosts: SmtpHostPolicy,
  ) {}

  async execute(principal: Principal, input: { id: number; changes: EmailServerChanges }): Promise<EmailServer> {
    // The policy is asked before the transaction, so no database connection waits on DNS; and
    // asked again inside if the row's host or tls moved meanwhile.
    const before = await this.repositories.emailServers.findById(principal.channelId, input.id);
    if (before === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
    let verdict = await this.verdict(before, input.changes);
    return this.transactor.run(async (repositories) => {
      const current = await repositories.emailServers.findById(principal.channelId, input.id);
      if (current === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
      if (current.host !== before.host || current.tls !== before.tls) verdict = await this.verdict(current, input.changes);
      const changes = { ...input.changes };
      if (typeof changes.password === 'string' && isRedactedPassword(changes.password, current.password)) delete changes.password;
      if (changes.password === undefined && current.password !== null && movesConnection(current, changes)) changes.password = null;
      if (changes.password === '') changes.password = null;
      checkEmailServer({ ...current, ...changes }, this.allowPlaintext, verdict);
      return (await repositories.emailServers.update(principal.channelId, input.id, changes))!;
    });
  }

  /** The policy's verdict on the host and tls the edit leaves, when it changes either. */
  private async verdict(current: EmailServer, changes: EmailServerChanges): Promise<HostVerdict | undefined> {
    const host = changes.host ?? current.host;
    const tls = changes.tls ?? current.tls;
    if (host === current.host && tls === current.tls) return undefined;
    return judgeHost({ host, tls }, this.hosts, this.allowPlaintext);
  }
}
