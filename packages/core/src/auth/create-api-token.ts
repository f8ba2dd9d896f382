import { apiTokenPrefix, formatApiToken, hashApiToken, isPermission, type Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { RandomSource, Transactor, type Repositories } from '../ports';

export interface IssuedToken {
  id: number;
  channelId: number;
  /** The plain token: shown once, never stored (docs/auth.md). */
  token: string;
  permissions: Permission[];
}

/** Issues a token inside an existing unit of work (shared by channel creation). */
export async function issueApiToken(
  repositories: Repositories,
  random: RandomSource,
  channelId: number,
  permissions: Permission[],
): Promise<IssuedToken> {
  const token = formatApiToken(random.bytes(32));
  const record = await repositories.apiTokens.create({
    channelId,
    hash: hashApiToken(token),
    prefix: apiTokenPrefix(token),
    permissions,
  });
  return { id: record.id, channelId, token, permissions: record.permissions };
}

@injectable()
export class CreateApiToken {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(input: { channelId: number; permissions: readonly string[] }): Promise<IssuedToken> {
    const unknown = input.permissions.filter((p) => !isPermission(p));
    if (input.permissions.length === 0 || unknown.length > 0) {
      throw ValidationError.forFields({
        permissions: [unknown.length > 0 ? `unknown: ${unknown.join(', ')}` : "can't be blank"],
      });
    }
    const permissions = [...new Set(input.permissions)] as Permission[];
    return this.transactor.run(async (repositories) => {
      if ((await repositories.channels.findById(input.channelId)) === null) {
        throw new NotFoundError('Channel not found');
      }
      return issueApiToken(repositories, this.random, input.channelId, permissions);
    });
  }
}
