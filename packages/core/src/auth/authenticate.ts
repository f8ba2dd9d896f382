import { timingSafeEqualBytes, hashApiToken, type ChannelFlag, type ChannelFlags, type Permission } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

/**
 * Who is calling (docs/auth.md). Every query is scoped by channelId: a channel token's own, or
 * for an admin (cross-channel) token the channel its request names with broadcast_channel_id.
 * An admin token on an installation-wide route that names no channel has channelId
 * NO_CHANNEL, which matches no row.
 */
export interface Principal {
  tokenId: number;
  channelId: number;
  permissions: readonly Permission[];
  /** Set for an admin token: it alone may change what every channel shares. */
  admin?: true;
  /**
   * Set when a signed-in user calls (the dashboard, docs/teams.md): tokenId is then 0, and the
   * permissions are those the user's flags grant in channelId (sudo: all, and admin).
   */
  userId?: number;
  /**
   * A signed-in user's channel flags (not for sudo): the finer actions the API permissions cannot
   * tell apart (sending beside writing, enrolling beside editing a sequence) are checked on them
   * (docs/teams.md, From flags to the API).
   */
  flags?: ChannelFlags;
}

/**
 * Whose requests a per-caller store counts (the rate limit's window, Idempotency-Key claims):
 * the token's id, or for a signed-in user (tokenId 0) minus the user's id, so every session of
 * one user shares them and no user shares a token's (docs/teams.md, Using the API signed in).
 */
export function callerKey(principal: Principal): number {
  return principal.userId !== undefined ? -principal.userId : principal.tokenId;
}

/** Ids start at 1: a query scoped to NO_CHANNEL finds nothing. */
export const NO_CHANNEL = 0;

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
    if (record.channelId === null) return { tokenId: record.id, channelId: NO_CHANNEL, permissions: record.permissions, admin: true };
    return { tokenId: record.id, channelId: record.channelId, permissions: record.permissions };
  }
}

export const GLOBAL_SUPPRESSIONS_ADMIN_ONLY = 'Admin API token required for global suppressions';

/** What every channel shares is an admin token's alone (docs/auth.md): a channel token gets 403. */
export function requireAdmin(principal: Principal, message: string): void {
  if (principal.admin !== true) throw new ForbiddenError(message);
}

/** The spec answers a token without the needed permission with 401, like a missing token. */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.includes(permission)) throw new UnauthorizedError();
}

/**
 * A signed-in user's finer action (`broadcasts_send`, `sequences_subscribers`): refused, as a
 * missing permission is, when the user's flags in the channel lack it. Tokens and sudo users carry
 * no flags and are judged by their permissions alone.
 */
export function requireAction(principal: Principal, action: ChannelFlag): void {
  if (principal.flags !== undefined && !principal.flags[action]) throw new UnauthorizedError();
}
