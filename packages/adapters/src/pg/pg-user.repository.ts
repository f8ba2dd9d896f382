import {
  EMAIL_TAKEN,
  ValidationError,
  type NewUser,
  type PermissionPreset,
  type User,
  type UserChanges,
  type UserChannelPermission,
  type UserFilter,
  type UserRepository,
} from '@mailcast/core';
import { CHANNEL_FLAGS, NO_FLAGS, systemPermissionsOf, type ChannelFlags, type SystemPermissions } from '@mailcast/domain';
import type { Knex } from 'knex';

interface UserRow {
  id: string | number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  active: boolean;
  sudo: boolean;
  locked_until: Date | null;
  two_factor_enabled: boolean;
  last_login_at: Date | null;
  system_permissions: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'active',
  'sudo',
  'locked_until',
  'two_factor_enabled',
  'last_login_at',
  'system_permissions',
  'created_at',
  'updated_at',
];

const toUser = (row: UserRow): User => ({
  id: Number(row.id),
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  active: row.active,
  sudo: row.sudo,
  lockedUntil: row.locked_until,
  twoFactorEnabled: row.two_factor_enabled,
  lastLoginAt: row.last_login_at,
  systemPermissions: systemPermissionsOf(row.system_permissions ?? {}),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Every flag answered, a missing one false (a flag added later reads as not granted). */
const flagsOf = (stored: Record<string, unknown>): ChannelFlags => Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, stored?.[f] === true])) as ChannelFlags;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

const isUniqueViolation = (error: unknown, constraint: string) =>
  (error as { code?: string }).code === '23505' && (error as { constraint?: string }).constraint === constraint;

/** Users, their permissions and the presets in PostgreSQL (docs/teams.md, Users API). */
export class PgUserRepository implements UserRepository {
  constructor(private readonly db: Knex) {}

  async list(filter: UserFilter): Promise<{ items: User[]; total: number }> {
    const scoped = (q: Knex.QueryBuilder) => {
      if (filter.status !== undefined) q.where('active', filter.status === 'active');
      if (filter.q !== undefined && filter.q !== '') {
        const pattern = `%${escapeLike(filter.q)}%`;
        q.where((w) => w.whereILike('email', pattern).orWhereILike('first_name', pattern).orWhereILike('last_name', pattern));
      }
      return q;
    };
    const [rows, count] = await Promise.all([
      scoped(this.db('users').select(USER_COLUMNS)).orderBy('id').limit(filter.limit).offset(filter.offset) as Promise<UserRow[]>,
      scoped(this.db('users').count<{ count: string }[]>('* as count')).first() as Promise<{ count: string } | undefined>,
    ]);
    return { items: rows.map(toUser), total: Number(count?.count ?? 0) };
  }

  async findById(id: number): Promise<User | null> {
    const row = (await this.db('users').select(USER_COLUMNS).where({ id }).first()) as UserRow | undefined;
    return row === undefined ? null : toUser(row);
  }

  async create(user: NewUser): Promise<User> {
    try {
      const [row] = (await this.db('users')
        .insert({ email: user.email, first_name: user.firstName, last_name: user.lastName, password_hash: user.passwordHash, sudo: user.sudo })
        .returning(USER_COLUMNS)) as UserRow[];
      return toUser(row!);
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_unique')) throw new ValidationError(EMAIL_TAKEN);
      throw error;
    }
  }

  async update(id: number, changes: UserChanges, now: Date): Promise<User> {
    const columns: Record<string, unknown> = { updated_at: now };
    if (changes.email !== undefined) columns.email = changes.email;
    if (changes.firstName !== undefined) columns.first_name = changes.firstName;
    if (changes.lastName !== undefined) columns.last_name = changes.lastName;
    if (changes.passwordHash !== undefined) columns.password_hash = changes.passwordHash;
    try {
      return await this.db.transaction(async (trx) => {
        const [row] = (await trx('users').update(columns).where({ id }).returning(USER_COLUMNS)) as UserRow[];
        // A new password ends every session (docs/teams.md, Sessions).
        if (changes.passwordHash !== undefined) await revokeSessions(trx, id, now);
        return toUser(row!);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_unique')) throw new ValidationError(EMAIL_TAKEN);
      throw error;
    }
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db('users').where({ id }).delete()) > 0;
  }

  async setActive(id: number, active: boolean, now: Date): Promise<User> {
    return this.db.transaction(async (trx) => {
      const columns = active ? { active, locked_until: null, updated_at: now } : { active, updated_at: now };
      const [row] = (await trx('users').update(columns).where({ id }).returning(USER_COLUMNS)) as UserRow[];
      if (active) await trx('sign_in_failures').where({ user_id: id }).delete();
      else await revokeSessions(trx, id, now);
      return toUser(row!);
    });
  }

  async setSudo(id: number, sudo: boolean): Promise<User | null> {
    const [row] = (await this.db('users').update({ sudo, updated_at: this.db.fn.now() }).where({ id }).returning(USER_COLUMNS)) as UserRow[];
    return row === undefined ? null : toUser(row);
  }

  async setSystemPermissions(id: number, permissions: SystemPermissions): Promise<User> {
    const [row] = (await this.db('users')
      .update({ system_permissions: JSON.stringify(permissions), updated_at: this.db.fn.now() })
      .where({ id })
      .returning(USER_COLUMNS)) as UserRow[];
    return toUser(row!);
  }

  private permissionsQuery(db: Knex | Knex.Transaction) {
    return db('user_channel_permissions as p')
      .join('channels as c', 'c.id', 'p.channel_id')
      .leftJoin('permission_presets as s', 's.id', 'p.preset_id')
      .select(
        'p.channel_id',
        'c.name as channel_name',
        'p.permissions',
        'p.created_at',
        'p.updated_at',
        's.id as preset_id',
        's.name as preset_name',
        's.permissions as preset_permissions',
      );
  }

  async channelPermissions(userId: number): Promise<UserChannelPermission[]> {
    const rows = (await this.permissionsQuery(this.db).where('p.user_id', userId).orderBy('p.channel_id')) as PermissionRow[];
    return rows.map(toPermission);
  }

  async channelPermission(userId: number, channelId: number): Promise<UserChannelPermission | null> {
    const row = (await this.permissionsQuery(this.db).where({ 'p.user_id': userId, 'p.channel_id': channelId }).first()) as PermissionRow | undefined;
    return row === undefined ? null : toPermission(row);
  }

  async putChannelPermission(userId: number, channelId: number, permissions: ChannelFlags, presetId: number | null): Promise<UserChannelPermission | null> {
    // One statement: a channel deleted meanwhile inserts nothing rather than failing the key.
    const result = await this.db.raw(
      `INSERT INTO user_channel_permissions (user_id, channel_id, permissions, preset_id)
       SELECT ?, c.id, ?::jsonb, ? FROM channels c WHERE c.id = ?
       ON CONFLICT (user_id, channel_id) DO UPDATE
         SET permissions = EXCLUDED.permissions, preset_id = EXCLUDED.preset_id, updated_at = now()
       RETURNING channel_id`,
      [userId, JSON.stringify({ ...NO_FLAGS, ...permissions }), presetId, channelId],
    );
    if ((result as { rows: unknown[] }).rows.length === 0) return null;
    return this.channelPermission(userId, channelId);
  }

  async deleteChannelPermission(userId: number, channelId: number): Promise<boolean> {
    return (await this.db('user_channel_permissions').where({ user_id: userId, channel_id: channelId }).delete()) > 0;
  }

  async findPreset(id: number): Promise<PermissionPreset | null> {
    const row = (await this.db('permission_presets').where({ id }).first()) as PresetRow | undefined;
    return row === undefined ? null : toPreset(row);
  }

  async createPreset(name: string, permissions: ChannelFlags): Promise<PermissionPreset> {
    try {
      const [row] = (await this.db('permission_presets')
        .insert({ name, permissions: JSON.stringify(permissions) })
        .returning('*')) as PresetRow[];
      return toPreset(row!);
    } catch (error) {
      if (isUniqueViolation(error, 'permission_presets_name_unique')) throw new ValidationError('Preset name has already been taken');
      throw error;
    }
  }
}

interface PresetRow {
  id: string | number;
  name: string;
  permissions: Record<string, unknown>;
}

const toPreset = (row: PresetRow): PermissionPreset => ({ id: Number(row.id), name: row.name, permissions: flagsOf(row.permissions) });

interface PermissionRow {
  channel_id: string | number;
  channel_name: string;
  permissions: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  preset_id: string | number | null;
  preset_name: string | null;
  preset_permissions: Record<string, unknown> | null;
}

const toPermission = (row: PermissionRow): UserChannelPermission => ({
  channelId: Number(row.channel_id),
  channelName: row.channel_name,
  permissions: flagsOf(row.permissions),
  preset: row.preset_id === null ? null : { id: Number(row.preset_id), name: row.preset_name ?? '', permissions: flagsOf(row.preset_permissions ?? {}) },
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Ends every live session of the user (deactivate, a new password: docs/teams.md). */
async function revokeSessions(trx: Knex.Transaction, userId: number, now: Date): Promise<void> {
  await trx('user_sessions').update({ revoked_at: now }).where({ user_id: userId }).whereNull('revoked_at');
}
