import type { ChannelAccess, SignInPasswords, SignInUser, SignInUserRepository, UserSession, UserSessionRepository } from '@mailcast/core';
import { CHANNEL_FLAGS, type ChannelFlags } from '@mailcast/domain';
import type { Knex } from 'knex';

/**
 * Sign-in's reads and writes of users, sessions and reset links (docs/teams.md, Signing in), on
 * the tables of migration 20261202000001_users_and_audit.
 */
interface UserRow {
  id: string | number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  active: boolean;
  sudo: boolean;
  password_hash: string | null;
  locked_until: Date | null;
  two_factor_enabled: boolean;
  system_permissions: Record<string, unknown> | null;
}

const USER_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'active',
  'sudo',
  'password_hash',
  'locked_until',
  'two_factor_enabled',
  'system_permissions',
] as const;

const toUser = (row: UserRow): SignInUser => ({
  id: Number(row.id),
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  active: row.active,
  sudo: row.sudo,
  passwordHash: row.password_hash,
  lockedUntil: row.locked_until,
  twoFactorEnabled: row.two_factor_enabled,
  systemPermissions: row.system_permissions ?? {},
});

/** Every flag answered: one missing from the stored object (a flag added later) is false. */
const flagsOf = (stored: Record<string, unknown> | null): ChannelFlags =>
  Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, stored?.[f] === true])) as ChannelFlags;

export class PgSignInUserRepository implements SignInUserRepository {
  constructor(private readonly db: Knex) {}

  async findByEmail(email: string): Promise<SignInUser | null> {
    const row = (await this.db('users').select(USER_COLUMNS).whereRaw('lower(email) = lower(?)', [email]).first()) as UserRow | undefined;
    return row ? toUser(row) : null;
  }

  async findById(id: number): Promise<SignInUser | null> {
    const row = (await this.db('users').select(USER_COLUMNS).where({ id }).first()) as UserRow | undefined;
    return row ? toUser(row) : null;
  }

  async recordFailure(userId: number, ip: string | null, now: Date, since: Date): Promise<number> {
    // One statement: the insert and the count of the window, the new row included.
    const result = await this.db.raw<{ rows: Array<{ failures: string }> }>(
      `WITH added AS (INSERT INTO sign_in_failures (user_id, ip, failed_at) VALUES (?, ?, ?) RETURNING id)
       SELECT (SELECT count(*) FROM sign_in_failures WHERE user_id = ? AND failed_at > ?) + (SELECT count(*) FROM added) AS failures`,
      [userId, ip, now, userId, since],
    );
    return Number(result.rows[0]!.failures);
  }

  async lock(userId: number, until: Date): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('users').where({ id: userId }).update({ locked_until: until });
      await trx('sign_in_failures').where({ user_id: userId }).delete();
    });
  }

  async recordSignIn(userId: number, now: Date): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('users').where({ id: userId }).update({ last_login_at: now, locked_until: null });
      await trx('sign_in_failures').where({ user_id: userId }).delete();
    });
  }

  async channelAccess(userId: number): Promise<ChannelAccess[]> {
    const rows = (await this.db('user_channel_permissions as p')
      .join('channels as c', 'c.id', 'p.channel_id')
      .leftJoin('permission_presets as s', 's.id', 'p.preset_id')
      .where('p.user_id', userId)
      .orderBy('c.id')
      .select('c.id', 'c.name', 'c.slug', 'p.permissions', 's.name as preset_name', 's.permissions as preset_permissions')) as Array<{
      id: string | number;
      name: string;
      slug: string;
      permissions: Record<string, unknown>;
      preset_name: string | null;
      preset_permissions: Record<string, unknown> | null;
    }>;
    return rows.map((r) => ({
      channel: { id: Number(r.id), name: r.name, slug: r.slug },
      permissions: flagsOf(r.permissions),
      preset: r.preset_name === null ? null : { name: r.preset_name, permissions: flagsOf(r.preset_permissions) },
    }));
  }

  async allChannels(): Promise<Array<{ id: number; name: string; slug: string }>> {
    const rows = (await this.db('channels').select('id', 'name', 'slug').orderBy('id')) as Array<{ id: string | number; name: string; slug: string }>;
    return rows.map((r) => ({ id: Number(r.id), name: r.name, slug: r.slug }));
  }

  async channel(id: number): Promise<{ id: number; name: string; slug: string } | null> {
    const row = (await this.db('channels').select('id', 'name', 'slug').where({ id }).first()) as
      { id: string | number; name: string; slug: string } | undefined;
    return row ? { id: Number(row.id), name: row.name, slug: row.slug } : null;
  }
}

interface SessionRow {
  id: string | number;
  user_id: string | number;
  token_hash: Buffer;
  csrf_hash: Buffer;
  two_factor_passed: boolean;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
  last_seen_at: Date;
  revoked_at: Date | null;
}

const toSession = (row: SessionRow): UserSession => ({
  id: Number(row.id),
  userId: Number(row.user_id),
  twoFactorPassed: row.two_factor_passed,
  ip: row.ip,
  userAgent: row.user_agent,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  revokedAt: row.revoked_at,
});

export class PgUserSessionRepository implements UserSessionRepository {
  constructor(private readonly db: Knex) {}

  async create(
    session: { userId: number; tokenHash: Uint8Array; csrfHash: Uint8Array; twoFactorPassed: boolean; ip: string | null; userAgent: string | null },
    now: Date,
  ): Promise<UserSession> {
    const [row] = (await this.db('user_sessions')
      .insert({
        user_id: session.userId,
        token_hash: Buffer.from(session.tokenHash),
        csrf_hash: Buffer.from(session.csrfHash),
        two_factor_passed: session.twoFactorPassed,
        ip: session.ip,
        user_agent: session.userAgent,
        created_at: now,
        last_seen_at: now,
      })
      .returning('*')) as SessionRow[];
    return toSession(row!);
  }

  async findByTokenHash(hash: Uint8Array): Promise<(UserSession & { tokenHash: Uint8Array; csrfHash: Uint8Array }) | null> {
    const row = (await this.db('user_sessions')
      .where({ token_hash: Buffer.from(hash) })
      .first()) as SessionRow | undefined;
    return row ? { ...toSession(row), tokenHash: row.token_hash, csrfHash: row.csrf_hash } : null;
  }

  async touch(id: number, now: Date): Promise<void> {
    await this.db('user_sessions').where({ id }).whereNull('revoked_at').update({ last_seen_at: now });
  }

  async revoke(userId: number, id: number, now: Date): Promise<boolean> {
    return (await this.db('user_sessions').where({ id, user_id: userId }).whereNull('revoked_at').update({ revoked_at: now })) > 0;
  }

  async revokeAllOf(userId: number, now: Date, exceptId?: number): Promise<number> {
    const query = this.db('user_sessions').where({ user_id: userId }).whereNull('revoked_at');
    if (exceptId !== undefined) void query.whereNot({ id: exceptId });
    return query.update({ revoked_at: now });
  }

  async listLive(userId: number, seenSince: Date): Promise<UserSession[]> {
    const rows = (await this.db('user_sessions')
      .where({ user_id: userId })
      .whereNull('revoked_at')
      .where('last_seen_at', '>', seenSince)
      .orderBy([
        { column: 'last_seen_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])) as SessionRow[];
    return rows.map(toSession);
  }

  async markTwoFactorPassed(id: number): Promise<void> {
    await this.db('user_sessions').where({ id }).update({ two_factor_passed: true });
  }
}

export class PgSignInPasswords implements SignInPasswords {
  constructor(private readonly db: Knex) {}

  async redeem(tokenHash: Uint8Array, passwordHash: string, now: Date): Promise<number | null> {
    return this.db.transaction(async (trx) => {
      // The conditional update is the one-use guarantee: of two concurrent redemptions one matches.
      const [used] = (await trx('password_resets')
        .where({ token_hash: Buffer.from(tokenHash) })
        .whereNull('used_at')
        .where('expires_at', '>', now)
        .whereExists(trx('users').whereRaw('users.id = password_resets.user_id').where('users.active', true))
        .update({ used_at: now })
        .returning('user_id')) as Array<{ user_id: string | number }>;
      if (used === undefined) return null;
      const userId = Number(used.user_id);
      await trx('users').where({ id: userId }).update({ password_hash: passwordHash, locked_until: null, updated_at: now });
      await trx('sign_in_failures').where({ user_id: userId }).delete();
      await trx('user_sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: now });
      // The other links sent before this one die with it: one reset per request of the user.
      await trx('password_resets').where({ user_id: userId }).whereNull('used_at').update({ used_at: now });
      return userId;
    });
  }

  async changePassword(userId: number, passwordHash: string, now: Date, keepSessionId: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('users').where({ id: userId }).update({ password_hash: passwordHash, updated_at: now });
      await trx('user_sessions').where({ user_id: userId }).whereNull('revoked_at').whereNot({ id: keepSessionId }).update({ revoked_at: now });
    });
  }
}
