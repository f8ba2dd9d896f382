import {
  ADMIN_ONLY_PERMISSIONS,
  apiTokenPrefix,
  apiTokenSuffix,
  formatApiToken,
  hashApiToken,
  isPermission,
  type ApiTokenType,
  type Permission,
} from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { RandomSource, Transactor, type Repositories } from '../ports';

export interface IssuedToken {
  id: number;
  /** null for an admin (cross-channel) token. */
  channelId: number | null;
  type: ApiTokenType;
  label: string | null;
  /** The plain token: shown once, never stored (docs/auth.md). */
  token: string;
  permissions: Permission[];
}

/** Who a new token is for: one channel, or the installation's admin (docs/auth.md, Admin tokens). */
export type TokenOwner = { channelId: number } | { admin: true };

/** Issues a token inside an existing unit of work (shared by channel creation). */
export async function issueApiToken(
  repositories: Repositories,
  random: RandomSource,
  owner: TokenOwner,
  permissions: Permission[],
  label: string | null = null,
): Promise<IssuedToken> {
  const token = formatApiToken(random.bytes(32));
  const channelId = 'channelId' in owner ? owner.channelId : null;
  const type: ApiTokenType = channelId === null ? 'admin_cross_channel' : 'channel';
  const record = await repositories.apiTokens.create({
    channelId,
    type,
    label,
    hash: hashApiToken(token),
    prefix: apiTokenPrefix(token),
    suffix: apiTokenSuffix(token),
    permissions,
  });
  return { id: record.id, channelId, type, label, token, permissions: record.permissions };
}

const MAX_LABEL_LENGTH = 255;

@injectable()
export class CreateApiToken {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(input: TokenOwner & { permissions: readonly string[]; label?: string | null }): Promise<IssuedToken> {
    const unknown = input.permissions.filter((p) => !isPermission(p));
    if (input.permissions.length === 0 || unknown.length > 0) {
      throw ValidationError.forFields({
        permissions: [unknown.length > 0 ? `unknown: ${unknown.join(', ')}` : "can't be blank"],
      });
    }
    const permissions = [...new Set(input.permissions)] as Permission[];
    const adminOnly = permissions.filter((p) => ADMIN_ONLY_PERMISSIONS.includes(p));
    if ('channelId' in input && adminOnly.length > 0) {
      throw ValidationError.forFields({ permissions: [`${adminOnly.join(', ')} only for admin tokens (token create --admin)`] });
    }
    const label = input.label?.trim() || null;
    if (label !== null && label.length > MAX_LABEL_LENGTH) {
      throw ValidationError.forFields({ label: [`is too long (maximum is ${MAX_LABEL_LENGTH} characters)`] });
    }
    return this.transactor.run(async (repositories) => {
      if ('channelId' in input && (await repositories.channels.findById(input.channelId)) === null) {
        throw new NotFoundError('Channel not found');
      }
      return issueApiToken(repositories, this.random, 'channelId' in input ? { channelId: input.channelId } : { admin: true }, permissions, label);
    });
  }
}
