import { CHANNEL_FLAGS, isChannelFlag, NO_FLAGS, ROLE_FLAGS, ROLES, withImpliedReads, type ChannelFlags, type Role } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { ValidationError } from '../errors';
import { UserRepository, type PermissionPreset } from '../ports';
import { NOTHING_GRANTED } from './channel-grant';

/**
 * A named set of flags (admin CLI `preset create`, docs/teams.md): the flags named, added to a
 * role's when one is given as the base; a write turns its read on, as everywhere.
 */
@injectable()
export class CreatePermissionPreset {
  constructor(@inject(UserRepository) private readonly users: UserRepository) {}

  async execute(input: { name: string; permissions: readonly string[]; role?: string | null }): Promise<PermissionPreset> {
    const name = input.name.trim();
    if (name === '' || name.length > 255) throw new ValidationError('Preset name must be 1 to 255 characters');
    if (ROLES.some((r) => r.toLowerCase() === name.toLowerCase()) || name.toLowerCase() === 'custom') {
      throw new ValidationError(`${name} is a role's name; a preset needs its own`);
    }
    let base: ChannelFlags = NO_FLAGS;
    if (input.role !== undefined && input.role !== null) {
      if (!(ROLES as readonly string[]).includes(input.role)) throw new ValidationError(`Unknown role: ${input.role} (one of ${ROLES.join(', ')})`);
      base = ROLE_FLAGS[input.role as Role];
    }
    const unknown = input.permissions.filter((p) => !isChannelFlag(p));
    if (unknown.length > 0) throw new ValidationError(`Unknown permission: ${unknown.join(', ')}`);
    const { flags } = withImpliedReads({ ...base, ...Object.fromEntries(input.permissions.map((p) => [p, true])) });
    if (!CHANNEL_FLAGS.some((f) => flags[f])) throw new ValidationError(NOTHING_GRANTED);
    return this.users.createPreset(name, flags);
  }
}
