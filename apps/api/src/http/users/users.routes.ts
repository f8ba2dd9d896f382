import {
  BulkPutChannelPermissions,
  CHANNEL_NOT_FOUND,
  CreateUser,
  DeleteChannelPermission,
  DeleteUser,
  GetSystemPermissions,
  GetUser,
  ListChannelPermissions,
  ListUsers,
  PutChannelPermission,
  requireUserManager,
  SetUserActive,
  UpdateSystemPermissions,
  UpdateUser,
  USER_NOT_FOUND,
  type Principal,
} from '@mailcast/core';
import { Router, type Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { anyPrincipal } from '../auth';
import { idParam } from '../params';
import { parameterIgnored, parameterOverridden, unrecognizedParameters, withWarnings, type Warning } from '../warnings';
import { presentChannelPermission, presentUser, presentUserDetail } from './user.presenter';
import {
  BULK_BODY,
  bulkBody,
  createUserBody,
  GRANT_BODY,
  grantBody,
  listUsersQuery,
  SYSTEM_BODY,
  systemPermissionsBody,
  updateUserBody,
  USER_BODY,
  USER_UPDATE_BODY,
} from './users.schemas';

/** A read flag a write turned on, said as a warning (docs/teams.md, Channel permissions). */
const overridden = (turnedOn: readonly string[]): Warning[] =>
  turnedOn.map((flag) => parameterOverridden(`permissions.${flag}`, `${flag} was turned on: its write needs it`));

/**
 * The users of the installation (docs/teams.md, Users API): an admin token's, or a signed-in
 * user's with user_management. A channel token gets 403 before its body is read. Route
 * handlers never catch.
 */
export function usersRoutes(container: DependencyContainer): Router {
  const router = Router();
  const userId = (raw: string | string[] | undefined) => idParam(raw, USER_NOT_FOUND);
  const channelId = (raw: string | string[] | undefined) => idParam(raw, CHANNEL_NOT_FOUND);
  const caller = (res: Response, permission: 'users_read' | 'users_write'): Principal => {
    const found = anyPrincipal(res);
    requireUserManager(found, permission);
    return found;
  };
  const answerUser = async (res: Response, who: Principal, id: number, status: number, warnings: readonly Warning[] = []) => {
    const detail = await container.resolve(GetUser).execute(who, { id });
    res.status(status).json(withWarnings(presentUserDetail(detail), warnings));
  };

  router.get('/users', async (req, res) => {
    const who = caller(res, 'users_read');
    const { items, total } = await container.resolve(ListUsers).execute(who, listUsersQuery(req.query));
    res.json({ data: items.map(presentUser), total });
  });

  router.post('/users', async (req, res) => {
    const who = caller(res, 'users_write');
    const outcome = await container.resolve(CreateUser).execute(who, createUserBody(req.body));
    const warnings = unrecognizedParameters(req.body, USER_BODY);
    if (!outcome.resetSent && outcome.resetError !== undefined) {
      warnings.push(
        parameterIgnored(
          'send_password_reset',
          `The user was created, but the reset link could not be sent (${outcome.resetError}); use "forgot password" on the sign-in page`,
        ),
      );
    }
    await answerUser(res, who, outcome.id, 201, warnings);
  });

  router.get('/users/:id', async (req, res) => {
    const who = caller(res, 'users_read');
    await answerUser(res, who, userId(req.params.id), 200);
  });

  router.patch('/users/:id', async (req, res) => {
    const who = caller(res, 'users_write');
    const id = userId(req.params.id);
    await container.resolve(UpdateUser).execute(who, { id, ...updateUserBody(req.body) });
    await answerUser(res, who, id, 200, unrecognizedParameters(req.body, USER_UPDATE_BODY));
  });

  router.delete('/users/:id', async (req, res) => {
    const who = caller(res, 'users_write');
    await container.resolve(DeleteUser).execute(who, { id: userId(req.params.id) });
    res.json({ message: 'User deleted' });
  });

  for (const [action, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    router.post(`/users/:id/${action}`, async (req, res) => {
      const who = caller(res, 'users_write');
      const id = userId(req.params.id);
      await container.resolve(SetUserActive).execute(who, { id, active });
      await answerUser(res, who, id, 200);
    });
  }

  router.get('/users/:id/channel_permissions', async (req, res) => {
    const who = caller(res, 'users_read');
    const rows = await container.resolve(ListChannelPermissions).execute(who, { userId: userId(req.params.id) });
    res.json({ data: rows.map(presentChannelPermission), total: rows.length });
  });

  router.post('/users/:id/channel_permissions/bulk', async (req, res) => {
    const who = caller(res, 'users_write');
    const id = userId(req.params.id);
    const outcome = await container.resolve(BulkPutChannelPermissions).execute(who, { userId: id, ...bulkBody(req.body) });
    const warnings = [...unrecognizedParameters(req.body, BULK_BODY), ...overridden(outcome.turnedOn)];
    res.json(
      withWarnings(
        {
          applied: outcome.applied.map(presentChannelPermission),
          failed: outcome.failed.map((f) => ({ broadcast_channel_id: f.channelId, error: f.error })),
        },
        warnings,
      ),
    );
  });

  router.put('/users/:id/channel_permissions/:broadcast_channel_id', async (req, res) => {
    const who = caller(res, 'users_write');
    const input = { userId: userId(req.params.id), channelId: channelId(req.params.broadcast_channel_id), grant: grantBody(req.body) };
    const { permission, turnedOn } = await container.resolve(PutChannelPermission).execute(who, input);
    res.json(withWarnings(presentChannelPermission(permission), [...unrecognizedParameters(req.body, GRANT_BODY), ...overridden(turnedOn)]));
  });

  router.delete('/users/:id/channel_permissions/:broadcast_channel_id', async (req, res) => {
    const who = caller(res, 'users_write');
    const input = { userId: userId(req.params.id), channelId: channelId(req.params.broadcast_channel_id) };
    await container.resolve(DeleteChannelPermission).execute(who, input);
    res.json({ message: 'Channel permission removed' });
  });

  router.get('/users/:id/system_permissions', async (req, res) => {
    const who = caller(res, 'users_read');
    res.json(await container.resolve(GetSystemPermissions).execute(who, { userId: userId(req.params.id) }));
  });

  router.patch('/users/:id/system_permissions', async (req, res) => {
    const who = caller(res, 'users_write');
    const id = userId(req.params.id);
    const permissions = await container.resolve(UpdateSystemPermissions).execute(who, { userId: id, permissions: systemPermissionsBody(req.body) });
    res.json(withWarnings(permissions, unrecognizedParameters(req.body, SYSTEM_BODY)));
  });

  return router;
}
