import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../errors';
import { Transactor, type EmailServer, type NewEmailServer } from '../ports';
import { checkEmailServer, SmtpAllowPlaintext } from './email-server-rules';

/** Adds an email server to a channel: the admin CLI's `email-server add` and the API's create. */
@injectable()
export class AddEmailServer {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SmtpAllowPlaintext) private readonly allowPlaintext: SmtpAllowPlaintext,
  ) {}

  async execute(input: NewEmailServer): Promise<EmailServer> {
    checkEmailServer(input, this.allowPlaintext);
    return this.transactor.run(async (repositories) => {
      if ((await repositories.channels.findById(input.channelId)) === null) {
        throw new NotFoundError('Channel not found');
      }
      return repositories.emailServers.create(input);
    });
  }
}
