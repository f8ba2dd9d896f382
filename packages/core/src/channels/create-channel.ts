import { CHANNEL_PERMISSIONS } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { issueApiToken } from '../auth/create-api-token';
import { RandomSource, Transactor, type Channel } from '../ports';

/**
 * A new channel and a token with every channel permission, committed together (docs/auth.md):
 * nothing installation-wide, which is an admin token's alone.
 */
@injectable()
export class CreateChannel {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(input: { name: string; fromEmail?: string | null; fromName?: string | null }): Promise<{
    channel: Channel;
    token: string;
  }> {
    return this.transactor.run(async (repositories) => {
      const channel = await repositories.channels.create(input);
      const issued = await issueApiToken(repositories, this.random, { channelId: channel.id }, [...CHANNEL_PERMISSIONS]);
      return { channel, token: issued.token };
    });
  }
}
