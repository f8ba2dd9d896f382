import { PERMISSIONS, ROLE_FLAGS, type Permission } from '@mailcast/domain';
import { RecordingSystemMail } from '@mailcast/testkit';
import { SystemMail } from '@mailcast/core';
import argon2 from 'argon2';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { useApi } from '../../test-support/harness';

const ADMIN_ONLY = { error: 'Admin API token required for user management' };
const SUDO_UNTOUCHABLE = { error: 'Sudo users cannot be changed through the API' };
const PASSWORD = 'correct horse battery';

describe('the users API (docs/teams.md, Users API)', () => {
  const mail = new RecordingSystemMail();
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0', PUBLIC_URL: 'https://mail.example.test' }, overrides: [{ token: SystemMail, value: mail }] });
  let admin: string;
  let reader: string;
  let channelToken: string;
  let channelA: { id: number; name: string };
  let channelB: { id: number; name: string };

  const call = (token: string, method: 'get' | 'post' | 'patch' | 'put' | 'delete', path: string, body?: object) => {
    const r = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
    return body === undefined ? r : r.send(body);
  };
  const create = (body: object) => call(admin, 'post', '/users', body);
  const db = () => api.database.db;
  let counter = 0;
  const freshEmail = () => `user${++counter}@example.com`;
  const aUser = async (extra: object = {}) => {
    const res = await create({ email: freshEmail(), password: PASSWORD, ...extra });
    expect(res.status).toBe(201);
    return res.body as { id: number; email: string };
  };
  const aSudoUser = async () => {
    const [row] = await db()('users').insert({ email: freshEmail(), sudo: true }).returning('id');
    return Number((row as { id: number }).id);
  };

  beforeAll(async () => {
    admin = await api.fixtures.anAdminToken();
    reader = await api.fixtures.anAdminToken(['users_read']);
    const tenant = await api.fixtures.aTenant();
    channelToken = await api.fixtures.aToken(tenant.channel.id, [...PERMISSIONS] as Permission[]);
    channelA = await api.fixtures.aChannel({ name: 'Alpha' });
    channelB = await api.fixtures.aChannel({ name: 'Beta' });
  });

  describe('who may call', () => {
    it('answers a channel token 403 on every route, even with users_* and a malformed body, and writes nothing', async () => {
      const target = await aUser();
      const before = await db()('users').count('* as n').first();
      const attempts = [
        await call(channelToken, 'get', '/users'),
        await call(channelToken, 'post', '/users', { email: 'x', password: 1 }),
        await call(channelToken, 'get', `/users/${target.id}`),
        await call(channelToken, 'patch', `/users/${target.id}`, { email: 'taken@example.com' }),
        await call(channelToken, 'delete', `/users/${target.id}`),
        await call(channelToken, 'post', `/users/${target.id}/deactivate`),
        await call(channelToken, 'post', `/users/${target.id}/activate`),
        await call(channelToken, 'get', `/users/${target.id}/channel_permissions`),
        await call(channelToken, 'put', `/users/${target.id}/channel_permissions/${channelA.id}`, { role: 'Manager' }),
        await call(channelToken, 'delete', `/users/${target.id}/channel_permissions/${channelA.id}`),
        await call(channelToken, 'post', `/users/${target.id}/channel_permissions/bulk`, { broadcast_channel_ids: [channelA.id], role: 'Manager' }),
        await call(channelToken, 'get', `/users/${target.id}/system_permissions`),
        await call(channelToken, 'patch', `/users/${target.id}/system_permissions`, { permissions: { user_management: true } }),
      ];
      for (const res of attempts) expect([res.status, res.body]).toEqual([403, ADMIN_ONLY]);
      expect(await db()('users').count('* as n').first()).toEqual(before);
      expect(await db()('user_channel_permissions').where({ user_id: target.id })).toEqual([]);
    });

    it('lets an admin token with users_read read but not write (401 like any missing permission)', async () => {
      const target = await aUser();
      expect((await call(reader, 'get', `/users/${target.id}`)).status).toBe(200);
      expect((await call(reader, 'get', '/users')).status).toBe(200);
      const res = await call(reader, 'patch', `/users/${target.id}`, { first_name: 'No' });
      expect([res.status, res.body]).toEqual([401, { error: 'Unauthorized' }]);
    });

    it('needs no broadcast_channel_id from an admin token', async () => {
      expect((await call(admin, 'get', '/users?limit=1')).status).toBe(200);
    });
  });

  describe('create and show', () => {
    it('creates a user with a hashed password and answers it with its permissions', async () => {
      const res = await create({ user: { email: '  Ann@Example.com ', first_name: 'Ann', last_name: 'Lee', password: PASSWORD } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        email: 'ann@example.com',
        first_name: 'Ann',
        last_name: 'Lee',
        active: true,
        locked: false,
        sudo: false,
        two_factor_enabled: false,
        last_login_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        system_permissions: {
          user_management: false,
          channel_management: false,
          system_settings: false,
          system_monitoring: false,
          system_backups: false,
          system_updates: false,
          billing_management: false,
        },
        channel_permissions: [],
      });
      const row = await db()('users').where({ id: res.body.id }).first();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(await argon2.verify(row.password_hash, PASSWORD)).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain('argon2');
      expect((await call(admin, 'get', `/users/${res.body.id}`)).body).toEqual(res.body);
    });

    it('refuses an email taken in any case, with 422 and no second row', async () => {
      const first = await aUser();
      const res = await create({ email: first.email.toUpperCase(), password: PASSWORD });
      expect([res.status, res.body]).toEqual([422, { error: 'Email has already been taken' }]);
      const other = await aUser();
      const patch = await call(admin, 'patch', `/users/${other.id}`, { email: first.email.replace('user', 'USER') });
      expect([patch.status, patch.body]).toEqual([422, { error: 'Email has already been taken' }]);
      expect(await db()('users').whereRaw('lower(email) = ?', [first.email]).count('* as n').first()).toEqual({ n: 1 });
    });

    it.each([
      [{ email: 'a1@example.com' }, 'Either password or send_password_reset: true is required'],
      [{ email: 'a2@example.com', password: 'short pass' }, 'Password is too short (minimum is 12 characters)'],
      [{ email: 'a3@example.com', password: PASSWORD, send_password_reset: true }, 'Give either password or send_password_reset, not both'],
      [{ email: 'not an address', password: PASSWORD }, 'Email is invalid'],
      [{ password: PASSWORD }, "Email can't be blank"],
      [{ email: 'a4@example.com', password: 123456789012345 }, 'password must be a string'],
      [{ email: 'a5@example.com', password: PASSWORD, sudo: true }, 'sudo cannot be set through the API; use the admin CLI'],
      [{ user: { email: 'a6@example.com', password: PASSWORD, sudo_access: false } }, 'sudo cannot be set through the API; use the admin CLI'],
    ])('refuses %j with 422 and writes nothing', async (body, error) => {
      const before = await db()('users').count('* as n').first();
      const res = await create(body);
      expect([res.status, res.body]).toEqual([422, { error }]);
      expect(await db()('users').count('* as n').first()).toEqual(before);
    });

    it('mails a reset link when asked, storing only the hash of its token, good for two hours', async () => {
      const res = await create({ user: { email: 'invitee@example.com', first_name: 'In' }, send_password_reset: true });
      expect(res.status).toBe(201);
      expect(res.body.warnings).toBeUndefined();
      const message = mail.sent.find((m) => m.to === 'invitee@example.com')!;
      expect(message.subject).toBe('Set your Mailcast password');
      const token = /https:\/\/mail\.example\.test\/app\/reset-password\?token=([\w-]+)/.exec(message.text)?.[1];
      expect(token).toBeDefined();
      const rows = await db()('password_resets').where({ user_id: res.body.id });
      expect(rows).toHaveLength(1);
      expect(Buffer.from(rows[0].token_hash).equals(createHash('sha256').update(token!).digest())).toBe(true);
      const ttl = rows[0].expires_at.getTime() - rows[0].created_at.getTime();
      expect(Math.abs(ttl - 2 * 3_600_000)).toBeLessThan(60_000);
      expect((await db()('users').where({ id: res.body.id }).first()).password_hash).toBeNull();
    });

    it('warns of attributes it does not take, nested or flat', async () => {
      const res = await create({ user: { email: freshEmail(), password: PASSWORD, nickname: 'x' }, extra: 1 });
      expect(res.status).toBe(201);
      expect(res.body.warnings.map((w: { code: string; param: string }) => [w.code, w.param])).toEqual([
        ['unrecognized_parameter', 'nickname'],
        ['unrecognized_parameter', 'extra'],
      ]);
      const flat = await call(admin, 'patch', `/users/${res.body.id}`, { first_name: 'F', colour: 'red' });
      expect(flat.body.warnings.map((w: { param: string }) => w.param)).toEqual(['colour']);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      for (const path of ['/users/999999', '/users/abc', '/users/999999/channel_permissions']) {
        const res = await call(admin, 'get', path);
        expect([res.status, res.body]).toEqual([404, { error: 'User not found' }]);
      }
    });
  });

  describe('list', () => {
    it('pages, searches email and names, and filters by status', async () => {
      const tag = `zq${Date.now()}`;
      const one = await aUser({ email: `${tag}-one@example.com` });
      const two = await aUser({ email: `two-${counter}@example.com`, last_name: `Mc${tag.toUpperCase()}` });
      await call(admin, 'post', `/users/${two.id}/deactivate`);
      const all = await call(admin, 'get', `/users?q=${tag}`);
      expect(all.body.total).toBe(2);
      expect(all.body.data.map((u: { id: number }) => u.id)).toEqual([one.id, two.id]);
      expect(all.body.data[0]).not.toHaveProperty('channel_permissions');
      expect((await call(admin, 'get', `/users?q=${tag}&status=inactive`)).body.data.map((u: { id: number }) => u.id)).toEqual([two.id]);
      expect((await call(admin, 'get', `/users?q=${tag}&status=active`)).body.data.map((u: { id: number }) => u.id)).toEqual([one.id]);
      const page = await call(admin, 'get', `/users?q=${tag}&limit=1&offset=1`);
      expect([page.body.total, page.body.data.map((u: { id: number }) => u.id)]).toEqual([2, [two.id]]);
      // LIKE's wildcards are literal.
      expect((await call(admin, 'get', '/users?q=%25')).body.total).toBe(0);
    });

    it.each(['status=gone', 'limit=-1', 'offset=x'])('refuses %s with 422', async (query) => {
      expect((await call(admin, 'get', `/users?${query}`)).status).toBe(422);
    });
  });

  describe('update, deactivate, activate, delete', () => {
    it('changes names, email and password; a new password ends every session', async () => {
      const user = await aUser();
      await db()('user_sessions').insert({ user_id: user.id, token_hash: Buffer.alloc(32, counter), csrf_hash: Buffer.alloc(32, 1) });
      const res = await call(admin, 'patch', `/users/${user.id}`, { user: { first_name: 'New', last_name: null, email: 'Renamed-' + user.email } });
      expect(res.status).toBe(200);
      expect([res.body.first_name, res.body.last_name, res.body.email]).toEqual(['New', null, `renamed-${user.email}`]);
      expect(await db()('user_sessions').where({ user_id: user.id }).whereNull('revoked_at')).toHaveLength(1);
      expect((await call(admin, 'patch', `/users/${user.id}`, { password: 'another long password' })).status).toBe(200);
      expect(await argon2.verify((await db()('users').where({ id: user.id }).first()).password_hash, 'another long password')).toBe(true);
      expect(await db()('user_sessions').where({ user_id: user.id }).whereNull('revoked_at')).toHaveLength(0);
    });

    it('refuses a short password on update without changing anything', async () => {
      const user = await aUser();
      const before = await db()('users').where({ id: user.id }).first();
      const res = await call(admin, 'patch', `/users/${user.id}`, { first_name: 'Changed', password: 'too short' });
      expect(res.status).toBe(422);
      expect(await db()('users').where({ id: user.id }).first()).toEqual(before);
    });

    it('deactivate ends the sessions; activate lifts a lockout', async () => {
      const user = await aUser();
      await db()('user_sessions').insert({ user_id: user.id, token_hash: Buffer.alloc(32, 200 + (counter % 50)), csrf_hash: Buffer.alloc(32, 2) });
      const off = await call(admin, 'post', `/users/${user.id}/deactivate`);
      expect([off.status, off.body.active]).toEqual([200, false]);
      expect(await db()('user_sessions').where({ user_id: user.id }).whereNull('revoked_at')).toHaveLength(0);

      await db()('users')
        .where({ id: user.id })
        .update({ locked_until: new Date(Date.now() + 15 * 60_000) });
      expect((await call(admin, 'get', `/users/${user.id}`)).body.locked).toBe(true);
      const on = await call(admin, 'post', `/users/${user.id}/activate`);
      expect([on.status, on.body.active, on.body.locked]).toEqual([200, true, false]);
      expect((await db()('users').where({ id: user.id }).first()).locked_until).toBeNull();
    });

    it('deletes a user with its permissions', async () => {
      const user = await aUser();
      await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { role: 'Viewer' });
      const res = await call(admin, 'delete', `/users/${user.id}`);
      expect([res.status, res.body]).toEqual([200, { message: 'User deleted' }]);
      expect((await call(admin, 'get', `/users/${user.id}`)).status).toBe(404);
      expect(await db()('user_channel_permissions').where({ user_id: user.id })).toEqual([]);
      expect((await call(admin, 'delete', `/users/${user.id}`)).status).toBe(404);
    });
  });

  describe('sudo users', () => {
    it('can be read but never changed through the API', async () => {
      const id = await aSudoUser();
      expect((await call(admin, 'get', `/users/${id}`)).body.sudo).toBe(true);
      const attempts = [
        await call(admin, 'patch', `/users/${id}`, { first_name: 'X' }),
        await call(admin, 'delete', `/users/${id}`),
        await call(admin, 'post', `/users/${id}/deactivate`),
        await call(admin, 'post', `/users/${id}/activate`),
        await call(admin, 'put', `/users/${id}/channel_permissions/${channelA.id}`, { role: 'Viewer' }),
        await call(admin, 'delete', `/users/${id}/channel_permissions/${channelA.id}`),
        await call(admin, 'post', `/users/${id}/channel_permissions/bulk`, { broadcast_channel_ids: [channelA.id], role: 'Viewer' }),
        await call(admin, 'patch', `/users/${id}/system_permissions`, { permissions: { billing_management: true } }),
      ];
      for (const res of attempts) expect([res.status, res.body]).toEqual([403, SUDO_UNTOUCHABLE]);
      const row = await db()('users').where({ id }).first();
      expect([row.first_name, row.active, row.sudo]).toEqual([null, true, true]);
    });

    it('cannot be made through PATCH or system permissions either (422)', async () => {
      const user = await aUser();
      for (const [method, path, body] of [
        ['patch', `/users/${user.id}`, { sudo: true }],
        ['patch', `/users/${user.id}`, { user: { sudo: true } }],
        ['patch', `/users/${user.id}/system_permissions`, { permissions: { sudo_access: true } }],
      ] as const) {
        const res = await call(admin, method, path, body);
        expect(res.status).toBe(422);
      }
      expect((await db()('users').where({ id: user.id }).first()).sudo).toBe(false);
    });
  });

  describe('channel permissions', () => {
    it('sets a role, answers it, and lists it', async () => {
      const user = await aUser();
      const res = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { role: 'Editor' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        broadcast_channel_id: channelA.id,
        broadcast_channel_name: 'Alpha',
        role: 'Editor',
        permissions: ROLE_FLAGS.Editor,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const list = await call(admin, 'get', `/users/${user.id}/channel_permissions`);
      expect(list.body).toEqual({ data: [res.body], total: 1 });
      expect((await call(admin, 'get', `/users/${user.id}`)).body.channel_permissions).toEqual([res.body]);
    });

    it.each(['Viewer', 'Editor', 'Manager'] as const)('answers flags equal to %s as that role', async (role) => {
      const user = await aUser();
      const res = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, {
        channel_permission: { permissions: ROLE_FLAGS[role] },
      });
      expect(res.body.role).toBe(role);
    });

    it('answers a preset by name while untouched, and Custom otherwise', async () => {
      const [row] = await db()('permission_presets')
        .insert({ name: 'Copywriter', permissions: JSON.stringify({ ...ROLE_FLAGS.Viewer, templates_write: true }) })
        .returning('id');
      const presetId = Number((row as { id: number }).id);
      const user = await aUser();
      const put = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { preset_id: presetId });
      expect([put.status, put.body.role, put.body.permissions.templates_write]).toEqual([200, 'Copywriter', true]);
      const custom = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { permissions: { subscribers_read: true } });
      expect(custom.body.role).toBe('Custom');
      expect(Object.values(custom.body.permissions).filter(Boolean)).toHaveLength(1);
    });

    it('turns a read on for its write, with a parameter_overridden warning', async () => {
      const user = await aUser();
      const res = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, {
        permissions: { broadcasts_write: true, subscribers_write: true, subscribers_read: true },
        colour: 'red',
      });
      expect(res.status).toBe(200);
      expect(res.body.permissions.broadcasts_read).toBe(true);
      expect(res.body.warnings).toEqual([
        { code: 'unrecognized_parameter', param: 'colour', message: expect.any(String) },
        { code: 'parameter_overridden', param: 'permissions.broadcasts_read', message: 'broadcasts_read was turned on: its write needs it' },
      ]);
    });

    it.each([
      [{}, 'Give exactly one of permissions, role or preset_id'],
      [{ role: 'Viewer', preset_id: 1 }, 'Give exactly one of permissions, role or preset_id'],
      [{ role: 'Owner' }, 'Unknown role: Owner (one of Viewer, Editor, Manager)'],
      [{ preset_id: 999999 }, 'Preset not found'],
      [{ permissions: { subscribers_read: false } }, 'At least one permission must be granted'],
      [{ permissions: { launch_rockets: true } }, 'Unknown permission: launch_rockets'],
      [{ permissions: { subscribers_read: 'yes' } }, 'permissions.subscribers_read must be a boolean'],
    ])('refuses %j with 422 and keeps what the user had', async (body, error) => {
      const user = await aUser();
      await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { role: 'Viewer' });
      const res = await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, body);
      expect([res.status, res.body]).toEqual([422, { error }]);
      expect((await call(admin, 'get', `/users/${user.id}/channel_permissions`)).body.data.map((p: { role: string }) => p.role)).toEqual(['Viewer']);
    });

    it('answers 404 for an unknown channel or a permission the user does not have', async () => {
      const user = await aUser();
      const put = await call(admin, 'put', `/users/${user.id}/channel_permissions/999999`, { role: 'Viewer' });
      expect([put.status, put.body]).toEqual([404, { error: 'Channel not found' }]);
      const del = await call(admin, 'delete', `/users/${user.id}/channel_permissions/${channelB.id}`);
      expect([del.status, del.body]).toEqual([404, { error: 'Channel permission not found' }]);
    });

    it('removes one channel permission', async () => {
      const user = await aUser();
      await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelA.id}`, { role: 'Viewer' });
      await call(admin, 'put', `/users/${user.id}/channel_permissions/${channelB.id}`, { role: 'Viewer' });
      const res = await call(admin, 'delete', `/users/${user.id}/channel_permissions/${channelA.id}`);
      expect([res.status, res.body]).toEqual([200, { message: 'Channel permission removed' }]);
      expect(
        (await call(admin, 'get', `/users/${user.id}/channel_permissions`)).body.data.map((p: { broadcast_channel_id: number }) => p.broadcast_channel_id),
      ).toEqual([channelB.id]);
    });

    it('applies one grant to many channels; an unknown channel goes into failed, the rest stay applied', async () => {
      const user = await aUser();
      const res = await call(admin, 'post', `/users/${user.id}/channel_permissions/bulk`, {
        broadcast_channel_ids: [channelA.id, 999999, channelB.id],
        permissions: { templates_write: true },
      });
      expect(res.status).toBe(200);
      expect(res.body.applied.map((p: { broadcast_channel_id: number; role: string }) => [p.broadcast_channel_id, p.role])).toEqual([
        [channelA.id, 'Custom'],
        [channelB.id, 'Custom'],
      ]);
      expect(res.body.failed).toEqual([{ broadcast_channel_id: 999999, error: 'Channel not found' }]);
      expect(res.body.warnings.map((w: { code: string; param: string }) => [w.code, w.param])).toEqual([
        ['parameter_overridden', 'permissions.templates_read'],
      ]);
      expect(await db()('user_channel_permissions').where({ user_id: user.id }).count('* as n').first()).toEqual({ n: 2 });
    });

    it('refuses a bad bulk body whole', async () => {
      const user = await aUser();
      for (const body of [{ role: 'Viewer' }, { broadcast_channel_ids: [], role: 'Viewer' }, { broadcast_channel_ids: [channelA.id], role: 'Nobody' }]) {
        expect((await call(admin, 'post', `/users/${user.id}/channel_permissions/bulk`, body)).status).toBe(422);
      }
      expect(await db()('user_channel_permissions').where({ user_id: user.id })).toEqual([]);
    });
  });

  describe('system permissions', () => {
    it('changes the named ones only', async () => {
      const user = await aUser();
      const first = await call(admin, 'patch', `/users/${user.id}/system_permissions`, { permissions: { user_management: true, system_settings: true } });
      expect(first.status).toBe(200);
      const second = await call(admin, 'patch', `/users/${user.id}/system_permissions`, { permissions: { system_settings: false } });
      expect(second.body).toMatchObject({ user_management: true, system_settings: false, billing_management: false });
      expect((await call(admin, 'get', `/users/${user.id}/system_permissions`)).body).toEqual(second.body);
      expect((await call(admin, 'get', `/users/${user.id}`)).body.system_permissions).toEqual(second.body);
    });

    it.each([
      [{ permissions: { launch_rockets: true } }, /^Unknown system permission: launch_rockets/],
      [{ permissions: { user_management: 'yes' } }, /^System permissions must be true or false: user_management$/],
      [{}, /permissions/],
    ])('refuses %j with 422', async (body, error) => {
      const user = await aUser();
      const res = await call(admin, 'patch', `/users/${user.id}/system_permissions`, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatch(error);
    });
  });
});
