import { CHANNEL_FLAGS, SYSTEM_PERMISSIONS } from '@mailcast/domain';
import { bulkFields, grantFields, userFields } from '../http/users/users.schemas';
import {
  arrayOf,
  boolean,
  closed,
  dateTime,
  integer,
  nestedOrFlat,
  nullableDateTime,
  nullableString,
  page,
  ref,
  requestSchema,
  string,
  warned,
  type Schema,
} from './schema-helpers';

/** docs/teams.md, Users API. */
const userProperties: Record<string, Schema> = {
  id: integer(),
  email: string('Lower-cased; unique in any case.'),
  first_name: nullableString(),
  last_name: nullableString(),
  active: boolean('false: the user cannot sign in (deactivate).'),
  locked: boolean('Too many failed sign-ins: locked for 15 minutes; activate lifts it.'),
  sudo: boolean('May do everything everywhere; set only by the admin CLI.'),
  two_factor_enabled: boolean(),
  last_login_at: nullableDateTime(),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const channelFlags = closed(Object.fromEntries(CHANNEL_FLAGS.map((f) => [f, boolean()])), 'Every channel flag, true or false.');
const systemPermissions = closed(Object.fromEntries(SYSTEM_PERMISSIONS.map((p) => [p, boolean()])), 'Every system permission, true or false.');

export const USER_SCHEMAS: Record<string, Schema> = {
  User: closed(userProperties),
  UserDetail: warned(
    closed({
      ...userProperties,
      system_permissions: ref('SystemPermissions'),
      channel_permissions: arrayOf(ref('ChannelPermission')),
    }),
  ),
  UserList: page('User'),
  UserInput: requestSchema(userFields),
  UserBody: nestedOrFlat('user', 'UserInput', { send_password_reset: boolean('Create only (also accepted beside `user`).') }),
  ChannelFlags: channelFlags,
  SystemPermissions: warned(systemPermissions),
  ChannelPermission: warned(
    closed({
      broadcast_channel_id: integer(),
      broadcast_channel_name: string(),
      role: string(
        'Viewer, Editor or Manager when the flags are exactly a role\'s; else the name of the preset last applied while its flags are untouched; else "Custom".',
      ),
      permissions: ref('ChannelFlags'),
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  ),
  ChannelPermissionList: page('ChannelPermission'),
  ChannelGrantInput: requestSchema(grantFields),
  ChannelGrantBody: nestedOrFlat('channel_permission', 'ChannelGrantInput'),
  ChannelGrantBulkBody: requestSchema(bulkFields),
  ChannelGrantBulkResult: warned(
    closed({
      applied: arrayOf(ref('ChannelPermission'), 'The channels set, each as a channel permission.'),
      failed: arrayOf(
        closed({ broadcast_channel_id: integer(), error: string('"Channel not found", or the flags the caller does not hold.') }),
        'The channels not set; the others stay set (no rollback).',
      ),
    }),
  ),
  SystemPermissionsBody: closed({
    permissions: {
      type: 'object',
      description: 'System permission → true or false; those not named stay.',
      properties: Object.fromEntries(SYSTEM_PERMISSIONS.map((p) => [p, boolean()])),
    },
  }),
};
