import { apiPermissionsOf, CHANNEL_FLAGS, NO_FLAGS, ROLE_FLAGS, roleOf, systemPermissionsOf, withImpliedReads } from './user-permissions';

describe('channel flags and roles', () => {
  it('lists every flag of the reference service once', () => {
    expect(CHANNEL_FLAGS).toHaveLength(37);
    expect(new Set(CHANNEL_FLAGS).size).toBe(CHANNEL_FLAGS.length);
    expect(CHANNEL_FLAGS).toEqual(expect.arrayContaining(['sender_details_write', 'tokens_refresh', 'subscribers_export']));
  });

  it('nests the roles: a Viewer only reads, an Editor sends but manages nothing, a Manager has all', () => {
    const granted = (role: keyof typeof ROLE_FLAGS) => CHANNEL_FLAGS.filter((f) => ROLE_FLAGS[role][f]);
    expect(granted('Viewer').every((f) => f.endsWith('_read'))).toBe(true);
    expect(granted('Viewer')).toContain('broadcasts_read');
    expect(granted('Editor')).toEqual(expect.arrayContaining([...granted('Viewer'), 'broadcasts_send', 'templates_write']));
    expect(granted('Editor')).not.toContain('tokens_write');
    expect(granted('Editor')).not.toContain('email_servers_write');
    expect(granted('Manager')).toEqual([...CHANNEL_FLAGS]);
  });

  it('answers the matching role, else the untouched preset, else Custom', () => {
    expect(roleOf(ROLE_FLAGS.Editor)).toBe('Editor');
    const preset = { name: 'Writers', permissions: { ...NO_FLAGS, templates_read: true, templates_write: true } };
    expect(roleOf({ ...preset.permissions }, preset)).toBe('Writers');
    expect(roleOf({ ...preset.permissions, segments_read: true }, preset)).toBe('Custom');
    expect(roleOf(NO_FLAGS, null)).toBe('Custom');
  });

  it('turns on the read of a write given alone, and says which', () => {
    const { flags, turnedOn } = withImpliedReads({ ...NO_FLAGS, broadcasts_write: true, segments_read: true });
    expect(turnedOn).toEqual(['broadcasts_read']);
    expect(flags.broadcasts_read).toBe(true);
    expect(flags.segments_write).toBe(false);
  });

  it('maps flags to API permissions: a Viewer cannot write, nothing reaches the global list', () => {
    expect(apiPermissionsOf(ROLE_FLAGS.Viewer).every((p) => p.endsWith('_read'))).toBe(true);
    expect(apiPermissionsOf(ROLE_FLAGS.Manager)).not.toContain('global_suppressions_write');
    expect(apiPermissionsOf(ROLE_FLAGS.Manager)).toEqual(expect.arrayContaining(['webhook_endpoints_write', 'suppressions_write', 'email_servers_write']));
    expect(apiPermissionsOf(NO_FLAGS)).toEqual([]);
  });

  it('answers every system permission, unset ones false', () => {
    expect(systemPermissionsOf({ user_management: true, bogus: true })).toEqual({
      user_management: true,
      channel_management: false,
      system_settings: false,
      system_monitoring: false,
      system_backups: false,
      system_updates: false,
      billing_management: false,
    });
  });
});
