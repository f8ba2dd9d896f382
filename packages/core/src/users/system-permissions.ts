import { isSystemPermission, SYSTEM_PERMISSIONS, type SystemPermissions } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { UserRepository } from '../ports';
import { assertMayGrantSystem, assertNotOwnPermissions, changeableUser, findUser, requireUserManager } from './user-access';

@injectable()
export class GetSystemPermissions {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number }): Promise<SystemPermissions> {
    requireUserManager(caller, 'users_read');
    return (await findUser(this.users, input.userId)).systemPermissions;
  }
}

/** Changes the named system permissions only; sudo is not one of them (docs/teams.md). */
@injectable()
export class UpdateSystemPermissions {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(caller: Principal, input: { userId: number; permissions: Record<string, unknown> }): Promise<SystemPermissions> {
    requireUserManager(caller, 'users_write');
    const unknown = Object.keys(input.permissions).filter((k) => !isSystemPermission(k));
    if (unknown.length > 0) throw new ValidationError(`Unknown system permission: ${unknown.join(', ')} (one of ${SYSTEM_PERMISSIONS.join(', ')})`);
    const notBoolean = Object.entries(input.permissions).filter(([, v]) => typeof v !== 'boolean');
    if (notBoolean.length > 0) throw new ValidationError(`System permissions must be true or false: ${notBoolean.map(([k]) => k).join(', ')}`);
    const { user, powers } = await changeableUser(this.users, caller, input.userId);
    assertNotOwnPermissions(powers, user);
    const named = input.permissions as Partial<SystemPermissions>;
    assertMayGrantSystem(powers, { ...Object.fromEntries(SYSTEM_PERMISSIONS.map((p) => [p, false])), ...named } as SystemPermissions);
    return (await this.users.setSystemPermissions(user.id, { ...user.systemPermissions, ...named })).systemPermissions;
  }
}
