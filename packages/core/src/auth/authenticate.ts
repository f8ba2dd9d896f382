import { timingSafeEqualBytes, hashApiToken, type Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

/** Who is calling: one token, one channel (docs/auth.md). Every query is scoped by channelId. */
export interface Principal {
  tokenId: number;
  channelId: number;
  permissions: readonly Permission[];
}

// The scheme is case-insensitive (RFC 7235 §2.1); the token is visible ASCII, bounded in length.
const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/i;

@injectable()
export class Authenticate {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  /** Resolves the bearer token of a request, or throws the spec's 401 for any failure. */
  async execute(input: { authorization: string | undefined }): Promise<Principal> {
    const token = BEARER.exec(input.authorization ?? '')?.[1];
    if (token === undefined) throw new UnauthorizedError();
    const hash = hashApiToken(token);
    const record = await this.repositories.apiTokens.findByHash(hash);
    // The index finds the row by hash; the constant-time comparison keeps a mismatch from
    // being told apart by timing if the lookup ever becomes a prefix or range scan.
    if (record === null || record.revokedAt !== null || !timingSafeEqualBytes(record.hash, hash)) {
      throw new UnauthorizedError();
    }
    return { tokenId: record.id, channelId: record.channelId, permissions: record.permissions };
  }
}

/** The spec answers a token without the needed permission with 401, like a missing token. */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.includes(permission)) throw new UnauthorizedError();
}
