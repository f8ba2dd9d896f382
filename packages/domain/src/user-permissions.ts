import type { Permission } from './api-token';

/**
 * What a user may do in one channel (docs/teams.md, Channel permissions): the reference
 * service's flags, each a boolean. A read and a write for each area, then the finer actions.
 */
const AREAS = [
  'subscribers',
  'broadcasts',
  'sequences',
  'autopilot',
  'templates',
  'segments',
  'tokens',
  'file_assets',
  'transactionals',
  'opt_in_forms',
  'global_suppressions',
  'channel_settings',
  'email_servers',
  'esp_integrations',
  'sender_details',
] as const;

const ACTIONS = [
  'subscribers_import',
  'subscribers_export',
  'broadcasts_send',
  'broadcasts_duplicate',
  'sequences_subscribers',
  'templates_duplicate',
  'tokens_refresh',
] as const;

export const CHANNEL_FLAGS = [...AREAS.flatMap((a) => [`${a}_read`, `${a}_write`] as const), ...ACTIONS] as const;
export type ChannelFlag = (typeof CHANNEL_FLAGS)[number];
export type ChannelFlags = Record<ChannelFlag, boolean>;

export function isChannelFlag(value: string): value is ChannelFlag {
  return (CHANNEL_FLAGS as readonly string[]).includes(value);
}

export const ROLES = ['Viewer', 'Editor', 'Manager'] as const;
export type Role = (typeof ROLES)[number];

/** The areas whose content Viewers read and Editors change (docs/teams.md, Roles). */
const CONTENT = ['subscribers', 'broadcasts', 'sequences', 'autopilot', 'templates', 'segments', 'file_assets', 'transactionals', 'opt_in_forms'] as const;

function flagsOf(granted: readonly ChannelFlag[]): ChannelFlags {
  return Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, granted.includes(f)])) as ChannelFlags;
}

const VIEWER: readonly ChannelFlag[] = CONTENT.map((a) => `${a}_read` as ChannelFlag);
const EDITOR: readonly ChannelFlag[] = [
  ...VIEWER,
  ...CONTENT.map((a) => `${a}_write` as ChannelFlag),
  'subscribers_import',
  'subscribers_export',
  'broadcasts_send',
  'broadcasts_duplicate',
  'sequences_subscribers',
  'templates_duplicate',
];

/** Viewer = content reads; Editor = Viewer + content writes, sends and duplicates; Manager = all. */
export const ROLE_FLAGS: Readonly<Record<Role, ChannelFlags>> = {
  Viewer: flagsOf(VIEWER),
  Editor: flagsOf(EDITOR),
  Manager: flagsOf(CHANNEL_FLAGS),
};

/** No flags at all: what `permissions` replaces from (an unnamed flag is false). */
export const NO_FLAGS: ChannelFlags = flagsOf([]);

/**
 * A write flag without its read turns the read on (the reference service's rule); the reads so
 * turned on are answered as `parameter_overridden` warnings.
 */
export function withImpliedReads(flags: ChannelFlags): { flags: ChannelFlags; turnedOn: ChannelFlag[] } {
  const out = { ...flags };
  const turnedOn: ChannelFlag[] = [];
  for (const area of AREAS) {
    if (out[`${area}_write`] && !out[`${area}_read`]) {
      out[`${area}_read`] = true;
      turnedOn.push(`${area}_read`);
    }
  }
  return { flags: out, turnedOn };
}

export function sameFlags(a: ChannelFlags, b: ChannelFlags): boolean {
  return CHANNEL_FLAGS.every((f) => a[f] === b[f]);
}

/** The role a set of flags answers as: a matching role, else the preset's name if untouched, else Custom. */
export function roleOf(flags: ChannelFlags, preset?: { name: string; permissions: ChannelFlags } | null): string {
  for (const role of ROLES) if (sameFlags(flags, ROLE_FLAGS[role])) return role;
  if (preset && sameFlags(flags, preset.permissions)) return preset.name;
  return 'Custom';
}

/**
 * What a signed-in user's flags let the API do in that channel (docs/teams.md, From flags to the
 * API): each area's read/write becomes the API permission of the same name; topics and the
 * channel's suppression list go with subscribers, webhook endpoints with channel settings (and the settings API itself, docs/reputation-guard.md). Flags
 * the API has no resource for (autopilot, tokens, file_assets, esp_integrations, sender_details)
 * are kept and answered but open nothing; the installation-wide suppression list stays an
 * admin's whatever a channel grants.
 */
export function apiPermissionsOf(flags: ChannelFlags): Permission[] {
  const out = new Set<Permission>();
  const map: [ChannelFlag, Permission[]][] = [
    ['subscribers_read', ['subscribers_read', 'suppressions_read']],
    ['subscribers_write', ['subscribers_write', 'suppressions_write']],
    ['broadcasts_read', ['broadcasts_read']],
    ['broadcasts_write', ['broadcasts_write']],
    ['sequences_read', ['sequences_read']],
    ['sequences_write', ['sequences_write']],
    ['templates_read', ['templates_read']],
    ['templates_write', ['templates_write']],
    ['segments_read', ['segments_read']],
    ['segments_write', ['segments_write']],
    ['transactionals_read', ['transactionals_read']],
    ['transactionals_write', ['transactionals_write']],
    ['opt_in_forms_read', ['opt_in_forms_read']],
    ['opt_in_forms_write', ['opt_in_forms_write']],
    ['email_servers_read', ['email_servers_read']],
    ['email_servers_write', ['email_servers_write']],
    ['channel_settings_read', ['webhook_endpoints_read', 'channel_settings_read']],
    ['channel_settings_write', ['webhook_endpoints_write', 'channel_settings_write']],
  ];
  for (const [flag, permissions] of map) if (flags[flag]) for (const p of permissions) out.add(p);
  return [...out];
}

export const SYSTEM_PERMISSIONS = [
  'user_management',
  'channel_management',
  'system_settings',
  'system_monitoring',
  'system_backups',
  'system_updates',
  'billing_management',
] as const;
export type SystemPermission = (typeof SYSTEM_PERMISSIONS)[number];
export type SystemPermissions = Record<SystemPermission, boolean>;

export function isSystemPermission(value: string): value is SystemPermission {
  return (SYSTEM_PERMISSIONS as readonly string[]).includes(value);
}

/** Every system permission answered, an unset one false. */
export function systemPermissionsOf(stored: Partial<Record<string, unknown>>): SystemPermissions {
  return Object.fromEntries(SYSTEM_PERMISSIONS.map((p) => [p, stored[p] === true])) as SystemPermissions;
}
