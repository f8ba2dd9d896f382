import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../errors';
import { SmtpHostPolicy, Transactor, type EmailServer, type NewEmailServer } from '../ports';
import { checkEmailServer, judgeHost, SmtpAllowPlaintext } from './email-server-rules';

/** Adds an email server to a channel: the admin CLI's `email-server add` and the API's create. */
@injectable()
export class AddEmailServer {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SmtpAllowPlaintext) private readonly allowPlaintext: SmtpAllowPlaintext,
    @inject(SmtpHostPolicy) private readonly hosts: SmtpHostPolicy,
  ) {}

  async execute(input: NewEmailServer): Promise<EmailServer> {
    // Resolved before the transaction: no database connection waits on DNS.
    checkEmailServer(input, this.allowPlaintext, await judgeHost(input, this.hosts, this.allowPlaintext));
    return this.transactor.run(async (repositories) => {
      if ((await repositories.channels.findById(input.channelId)) === null) {
        throw new NotFoundError('Channel not found');
      }
      return repositories.emailServers.create(input);
    });
  }
}
