import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Transactor, type EmailServer, type NewEmailServer } from '../ports';

@injectable()
export class AddEmailServer {
  constructor(@inject(Transactor) private readonly transactor: Transactor) {}

  async execute(input: NewEmailServer): Promise<EmailServer> {
    if (!Number.isInteger(input.port) || input.port < 1 || input.port > 65535) {
      throw ValidationError.forFields({ port: ['must be an integer from 1 to 65535'] });
    }
    if (input.host.trim() === '') throw ValidationError.forFields({ host: ["can't be blank"] });
    const limits = { max_per_second: input.maxPerSecond, max_per_minute: input.maxPerMinute, max_per_hour: input.maxPerHour, max_per_day: input.maxPerDay };
    // Absent (undefined) or null: no limit.
    const bad = Object.entries(limits).filter(([, v]) => v != null && !(Number.isInteger(v) && v >= 1 && v <= 2_147_483_647));
    if (bad.length > 0) throw ValidationError.forFields(Object.fromEntries(bad.map(([k]) => [k, ['must be a positive integer or null']])));
    return this.transactor.run(async (repositories) => {
      if ((await repositories.channels.findById(input.channelId)) === null) {
        throw new NotFoundError('Channel not found');
      }
      return repositories.emailServers.create(input);
    });
  }
}
