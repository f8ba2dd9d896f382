import { CHANNEL_FLAGS, isChannelFlag, NO_FLAGS, ROLE_FLAGS, ROLES, withImpliedReads, type ChannelFlag, type ChannelFlags, type Role } from '@mailcast/domain';
import { ValidationError } from '../errors';
import type { UserRepository } from '../ports';

/** What a PUT or bulk names: exactly one of flags, a role, a preset (docs/teams.md, Users API). */
export type ChannelGrant = { permissions: Record<string, unknown> } | { role: string } | { presetId: number };

export interface ResolvedGrant {
  flags: ChannelFlags;
  /** The preset applied, kept for the answered role; null for flags or a role. */
  presetId: number | null;
  /** Reads a write turned on (answered as parameter_overridden warnings). */
  turnedOn: ChannelFlag[];
}

export const NOTHING_GRANTED = 'At least one permission must be granted';

/** The flags a grant stands for; every refusal is a 422 before anything is written. */
export async function resolveGrant(users: UserRepository, grant: ChannelGrant): Promise<ResolvedGrant> {
  let resolved: ResolvedGrant;
  if ('permissions' in grant) {
    const unknown = Object.keys(grant.permissions).filter((k) => !isChannelFlag(k));
    if (unknown.length > 0) throw new ValidationError(`Unknown permission: ${unknown.join(', ')}`);
    const notBoolean = Object.entries(grant.permissions).filter(([, v]) => typeof v !== 'boolean');
    if (notBoolean.length > 0) throw new ValidationError(`Permissions must be true or false: ${notBoolean.map(([k]) => k).join(', ')}`);
    const { flags, turnedOn } = withImpliedReads({ ...NO_FLAGS, ...(grant.permissions as Partial<ChannelFlags>) });
    resolved = { flags, presetId: null, turnedOn };
  } else if ('role' in grant) {
    if (!(ROLES as readonly string[]).includes(grant.role)) throw new ValidationError(`Unknown role: ${grant.role} (one of ${ROLES.join(', ')})`);
    resolved = { flags: ROLE_FLAGS[grant.role as Role], presetId: null, turnedOn: [] };
  } else {
    const preset = await users.findPreset(grant.presetId);
    if (preset === null) throw new ValidationError('Preset not found');
    resolved = { flags: preset.permissions, presetId: preset.id, turnedOn: [] };
  }
  if (!CHANNEL_FLAGS.some((f) => resolved.flags[f])) throw new ValidationError(NOTHING_GRANTED);
  return resolved;
}
