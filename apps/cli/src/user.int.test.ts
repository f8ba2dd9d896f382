import { ROLE_FLAGS } from '@mailcast/domain';
import argon2 from 'argon2';
import request from 'supertest';
import { findPlaintext } from '@mailcast/testkit';
import { useApi } from '../../api/src/test-support/harness';
import { runAdmin } from './test-support/run-admin';

/** `user create`, `user sudo`/`unsudo`, `preset create` (docs/teams.md, "Users API"). */
describe('admin user and preset commands', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const admin = (argv: string[], stdin = '') => runAdmin(api.database.url, [...argv, '--json'], { stdin });
  const row = (id: number) => api.database.db('users').where({ id }).first();

  it('creates a user with the password from standard input, hashed, never echoed', async () => {
    const result = await admin(['user', 'create', '--email', 'Op@Example.com', '--first-name', 'Op', '--last-name', 'Erator'], 'a very long secret\n');
    expect([result.code, result.json]).toEqual([0, { id: expect.any(Number), email: 'op@example.com', sudo: false }]);
    const stored = await row(result.json.id);
    expect([stored.first_name, stored.last_name, stored.sudo]).toEqual(['Op', 'Erator', false]);
    expect(await argon2.verify(stored.password_hash, 'a very long secret')).toBe(true);
    expect(await findPlaintext(api.database.db, 'a very long secret')).toEqual([]);
    expect(result.stdout + result.stderr).not.toContain('a very long secret');
  });

  it('makes a sudo user with --sudo, whom the API then cannot change', async () => {
    const result = await admin(['user', 'create', '--email', 'root@example.com', '--sudo'], 'root password here');
    expect([result.code, result.json.sudo]).toEqual([0, true]);
    expect((await row(result.json.id)).sudo).toBe(true);
    const token = await api.fixtures.anAdminToken();
    const res = await request(api.app).delete(`/api/v1/users/${result.json.id}`).set('Authorization', `Bearer ${token}`);
    expect([res.status, res.body]).toEqual([403, { error: 'Sudo users cannot be changed through the API' }]);
  });

  it('turns sudo on and off', async () => {
    const { json } = await admin(['user', 'create', '--email', 'later@example.com'], 'later password here');
    expect((await admin(['user', 'sudo', '--id', String(json.id)])).json).toEqual({ id: json.id, sudo: true });
    expect((await row(json.id)).sudo).toBe(true);
    expect((await admin(['user', 'unsudo', '--id', String(json.id)])).json).toEqual({ id: json.id, sudo: false });
    expect((await row(json.id)).sudo).toBe(false);
    const missing = await admin(['user', 'sudo', '--id', '999999']);
    expect([missing.code, missing.json.error]).toEqual([1, 'User not found']);
  });

  it.each([
    [['user', 'create', '--email', 'short@example.com'], 'short pass', 1, 'Password is too short (minimum is 12 characters)'],
    [['user', 'create', '--email', 'empty@example.com'], '', 2, 'reads the password from standard input'],
    [['user', 'create', '--email', 'argv@example.com', '--password', 'a very long secret'], '', 2, '--password is refused'],
    [['user', 'create'], 'a very long secret', 2, '--email is required'],
    [['user', 'create', '--email', 'op@example.com'], 'a very long secret', 1, 'Email has already been taken'],
  ])('refuses %j and writes nothing', async (argv, stdin, code, message) => {
    const before = await api.database.db('users').count('* as n').first();
    const result = await admin(argv, stdin);
    expect([result.code, result.json.error]).toEqual([code, expect.stringContaining(message)]);
    expect(await api.database.db('users').count('* as n').first()).toEqual(before);
  });

  it('creates a preset from flags or a role, which the API applies and answers by name', async () => {
    const fromFlags = await admin(['preset', 'create', '--name', 'Writer', '--permissions', 'templates_write,broadcasts_read']);
    expect(fromFlags.code).toBe(0);
    expect(fromFlags.json).toEqual({ id: expect.any(Number), name: 'Writer', permissions: ['broadcasts_read', 'templates_read', 'templates_write'] });
    const fromRole = await admin(['preset', 'create', '--name', 'Viewer plus', '--role', 'Viewer', '--permissions', 'subscribers_export']);
    const viewer = Object.entries(ROLE_FLAGS.Viewer)
      .filter(([, on]) => on)
      .map(([flag]) => flag);
    expect([...fromRole.json.permissions].sort()).toEqual([...viewer, 'subscribers_export'].sort());
    expect(fromRole.json.permissions).toContain('subscribers_export');

    const token = await api.fixtures.anAdminToken();
    const channel = await api.fixtures.aChannel({ name: 'Presets' });
    const user = await admin(['user', 'create', '--email', 'writer@example.com'], 'writer password here');
    const res = await request(api.app)
      .put(`/api/v1/users/${user.json.id}/channel_permissions/${channel.id}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ preset_id: fromFlags.json.id });
    expect([res.status, res.body.role]).toEqual([200, 'Writer']);
  });

  it.each([
    [['preset', 'create', '--name', 'Nothing'], 2, '--permissions or --role is required'],
    [['preset', 'create', '--name', 'Odd', '--permissions', 'fly'], 1, 'Unknown permission: fly'],
    [['preset', 'create', '--name', 'Odd', '--role', 'Owner'], 1, 'Unknown role: Owner'],
    [['preset', 'create', '--name', 'editor', '--permissions', 'templates_read'], 1, "is a role's name"],
    [['preset', 'create', '--name', 'WRITER', '--permissions', 'templates_read'], 1, 'Preset name has already been taken'],
  ])('refuses %j', async (argv, code, message) => {
    const result = await admin(argv);
    expect([result.code, result.json.error]).toEqual([code, expect.stringContaining(message)]);
  });
});
