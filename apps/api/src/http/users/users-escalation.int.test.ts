import {
  BulkPutChannelPermissions,
  DeleteChannelPermission,
  ForbiddenError,
  PutChannelPermission,
  UnauthorizedError,
  UpdateSystemPermissions,
  UpdateUser,
  type Principal,
} from '@mailcast/core';
import { ROLE_FLAGS } from '@mailcast/domain';
import { useApi } from '../../test-support/harness';

/**
 * No escalation (docs/teams.md, Users API): a signed-in user with user_management hands out only
 * what it holds, never changes its own permissions, and never changes a user who holds more.
 * The principal is the one sign-in makes for a session (tokenId 0, userId); the use cases are
 * the routes' own, called with it.
 */
describe('a signed-in user managing users cannot escalate', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  let channelA: number;
  let channelB: number;
  let manager: Principal;
  let managerId: number;

  const db = () => api.database.db;
  const insertUser = async (email: string, extra: object = {}) => {
    const [row] = await db()('users')
      .insert({ email, ...extra })
      .returning('id');
    return Number((row as { id: number }).id);
  };
  const grant = (userId: number, channelId: number, flags: object) =>
    db()('user_channel_permissions').insert({ user_id: userId, channel_id: channelId, permissions: JSON.stringify(flags) });
  const flagsOf = async (userId: number, channelId: number) =>
    ((await db()('user_channel_permissions').where({ user_id: userId, channel_id: channelId }).first()) as { permissions: object } | undefined)?.permissions;
  const forbidden = (message: string | RegExp) => expect.objectContaining({ constructor: ForbiddenError, message: expect.stringMatching(message) });
  const put = (caller: Principal, userId: number, channelId: number, g: Parameters<PutChannelPermission['execute']>[1]['grant']) =>
    api.container.resolve(PutChannelPermission).execute(caller, { userId, channelId, grant: g });

  beforeAll(async () => {
    channelA = (await api.fixtures.aChannel({ name: 'A' })).id;
    channelB = (await api.fixtures.aChannel({ name: 'B' })).id;
    managerId = await insertUser('manager@example.com', { system_permissions: JSON.stringify({ user_management: true }) });
    await grant(managerId, channelA, ROLE_FLAGS.Editor);
    manager = { tokenId: 0, userId: managerId, channelId: channelA, permissions: ['users_read', 'users_write'] };
  });

  it('grants what it holds, in the channel it holds it', async () => {
    const target = await insertUser('t1@example.com');
    const { permission } = await put(manager, target, channelA, { role: 'Viewer' });
    expect(permission.role).toBe('Viewer');
  });

  it('refuses flags it does not hold, by PUT, and writes nothing', async () => {
    const target = await insertUser('t2@example.com');
    await expect(put(manager, target, channelA, { role: 'Manager' })).rejects.toEqual(
      forbidden(/^You cannot grant permissions you do not hold: .*tokens_read/),
    );
    await expect(put(manager, target, channelA, { permissions: { email_servers_write: true } })).rejects.toEqual(
      forbidden(/email_servers_read, email_servers_write$/),
    );
    await expect(put(manager, target, channelB, { role: 'Viewer' })).rejects.toEqual(forbidden(/^You cannot grant permissions you do not hold/));
    expect(await flagsOf(target, channelA)).toBeUndefined();
    expect(await flagsOf(target, channelB)).toBeUndefined();
  });

  it('refuses them by bulk too, channel by channel', async () => {
    const target = await insertUser('t3@example.com');
    const outcome = await api.container
      .resolve(BulkPutChannelPermissions)
      .execute(manager, { userId: target, channelIds: [channelA, channelB], grant: { role: 'Viewer' } });
    expect(outcome.applied.map((p) => p.channelId)).toEqual([channelA]);
    expect(outcome.failed).toEqual([{ channelId: channelB, error: expect.stringMatching(/^You cannot grant permissions you do not hold/) }]);
    expect(await flagsOf(target, channelB)).toBeUndefined();
  });

  it('never changes its own permissions, even to fewer', async () => {
    await expect(put(manager, managerId, channelA, { role: 'Viewer' })).rejects.toEqual(forbidden('You cannot change your own permissions'));
    await expect(put(manager, managerId, channelB, { role: 'Viewer' })).rejects.toEqual(forbidden('You cannot change your own permissions'));
    await expect(
      api.container.resolve(BulkPutChannelPermissions).execute(manager, { userId: managerId, channelIds: [channelB], grant: { role: 'Viewer' } }),
    ).rejects.toEqual(forbidden('You cannot change your own permissions'));
    await expect(api.container.resolve(DeleteChannelPermission).execute(manager, { userId: managerId, channelId: channelA })).rejects.toEqual(
      forbidden('You cannot change your own permissions'),
    );
    await expect(
      api.container.resolve(UpdateSystemPermissions).execute(manager, { userId: managerId, permissions: { billing_management: true } }),
    ).rejects.toEqual(forbidden('You cannot change your own permissions'));
    expect(await flagsOf(managerId, channelA)).toEqual(ROLE_FLAGS.Editor);
    expect(await flagsOf(managerId, channelB)).toBeUndefined();
  });

  it('hands out only the system permissions it holds', async () => {
    const target = await insertUser('t4@example.com');
    const update = (permissions: Record<string, boolean>) => api.container.resolve(UpdateSystemPermissions).execute(manager, { userId: target, permissions });
    await expect(update({ system_settings: true })).rejects.toEqual(forbidden('You cannot grant permissions you do not hold: system_settings'));
    expect((await update({ user_management: true })).user_management).toBe(true);
  });

  it('does not change a user who holds more than it does (their password would be its way in)', async () => {
    const boss = await insertUser('boss@example.com', { password_hash: 'kept' });
    await grant(boss, channelA, ROLE_FLAGS.Manager);
    await expect(api.container.resolve(UpdateUser).execute(manager, { id: boss, password: 'a long new password' })).rejects.toEqual(
      forbidden('You cannot change a user who holds permissions you do not hold'),
    );
    await expect(put(manager, boss, channelA, { role: 'Viewer' })).rejects.toEqual(forbidden('You cannot change a user who holds'));
    expect((await db()('users').where({ id: boss }).first()).password_hash).toBe('kept');
  });

  it('needs users_write like a token (401 without), and leaves sudo users alone', async () => {
    const target = await insertUser('t5@example.com');
    await expect(put({ ...manager, permissions: ['users_read'] }, target, channelA, { role: 'Viewer' })).rejects.toBeInstanceOf(UnauthorizedError);
    const sudo = await insertUser('sudo@example.com', { sudo: true });
    await expect(put(manager, sudo, channelA, { role: 'Viewer' })).rejects.toEqual(forbidden('Sudo users cannot be changed through the API'));
  });

  it('lets a sudo user (admin principal) grant anything', async () => {
    const sudoId = await insertUser('root@example.com', { sudo: true });
    const sudo: Principal = { tokenId: 0, userId: sudoId, channelId: channelA, permissions: ['users_read', 'users_write'], admin: true };
    const target = await insertUser('t6@example.com');
    expect((await put(sudo, target, channelB, { role: 'Manager' })).permission.role).toBe('Manager');
  });
});
