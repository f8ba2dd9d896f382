import { authenticated, type Json, ok, param, query } from './operation';
import { ref } from './schemas';

export const USERS = 'Users';

const ADMIN =
  'An admin (cross-channel) token, or a signed-in user with the system permission `user_management`; a channel token gets 403 `{"error": "Admin API token required for user management"}` before its body is read. No `broadcast_channel_id` needed.';
const SUDO = 'A sudo user: 403 `{"error": "Sudo users cannot be changed through the API"}`. `sudo` or `sudo_access` anywhere in the body: 422.';
const NO_ESCALATION =
  'A signed-in user (not sudo) grants only flags and system permissions it holds itself (in that channel), never changes its own permissions, and never changes a user who holds anything it does not: 403.';
const channelParam = {
  name: 'broadcast_channel_id',
  in: 'path',
  required: true,
  description: 'A channel of the installation.',
  schema: { type: 'integer', minimum: 1 },
};
const GRANT_422 =
  '422, nothing written: not exactly one of `permissions`, `role`, `preset_id`; an unknown flag, role or preset; a flag that is not true or false; nothing granted (all false). A write flag given without its read turns the read on, answered as a `parameter_overridden` warning.';

const admin = (description: string) => `${description}\n\n${ADMIN}`;

/** docs/teams.md, Users API. */
export const USER_PATHS: Record<string, Json> = {
  '/api/v1/users': {
    get: authenticated({
      operationId: 'listUsers',
      summary: 'List users',
      description: admin('By id.'),
      tag: USERS,
      permission: 'users_read',
      parameters: [
        param('limit'),
        param('offset'),
        query('q', { type: 'string', maxLength: 320 }, 'A substring of the email, first or last name (any case).'),
        query('status', { type: 'string', enum: ['active', 'inactive'] }, 'Only active or only deactivated users.'),
      ],
      responses: { '200': ok('A page of users.', ref('UserList')) },
      errors: ['403', '422'],
    }),
    post: authenticated({
      operationId: 'createUser',
      summary: 'Create a user',
      description: admin(
        'With `password` (at least 12 characters, stored as an argon2id hash) or `send_password_reset: true` (a link to `/app/reset-password`, good once for 2 hours, mailed by the system sender), not both. 422, nothing written: an email that is invalid or taken (in any case), neither or both of the two, a short password, `sudo`. A link that could not be mailed: 201 with a `parameter_ignored` warning.',
      ),
      tag: USERS,
      permission: 'users_write',
      body: { schema: ref('UserBody') },
      responses: { '201': ok('Created.', ref('UserDetail')) },
      errors: ['403', '422'],
    }),
  },
  '/api/v1/users/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getUser',
      summary: 'Get a user',
      description: admin('With its system and channel permissions.'),
      tag: USERS,
      permission: 'users_read',
      responses: { '200': ok('The user.', ref('UserDetail')) },
      errors: ['403', '404'],
    }),
    patch: authenticated({
      operationId: 'updateUser',
      summary: 'Update a user',
      description: admin(`Names, email, password; a new password ends every session of the user. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      body: { schema: ref('UserBody') },
      responses: { '200': ok('The user.', ref('UserDetail')) },
      errors: ['403', '404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteUser',
      summary: 'Delete a user',
      description: admin(`With its permissions, sessions and reset links. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['403', '404'],
    }),
  },
  '/api/v1/users/{id}/deactivate': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'deactivateUser',
      summary: 'Deactivate a user',
      description: admin(`The user can no longer sign in; every live session ends. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      responses: { '200': ok('The user.', ref('UserDetail')) },
      errors: ['403', '404'],
    }),
  },
  '/api/v1/users/{id}/activate': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'activateUser',
      summary: 'Activate a user',
      description: admin(`Signing in works again, and a lockout after failed sign-ins is lifted. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      responses: { '200': ok('The user.', ref('UserDetail')) },
      errors: ['403', '404'],
    }),
  },
  '/api/v1/users/{id}/channel_permissions': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'listUserChannelPermissions',
      summary: "List a user's channel permissions",
      description: admin('By channel id.'),
      tag: USERS,
      permission: 'users_read',
      responses: { '200': ok('Every channel permission of the user.', ref('ChannelPermissionList')) },
      errors: ['403', '404'],
    }),
  },
  '/api/v1/users/{id}/channel_permissions/{broadcast_channel_id}': {
    parameters: [param('id'), channelParam],
    put: authenticated({
      operationId: 'putUserChannelPermission',
      summary: "Set a user's permissions in a channel",
      description: admin(
        `Exactly one of \`permissions\` (replaces every flag; an unnamed one is false), \`role\` (Viewer, Editor, Manager) or \`preset_id\` (copies the preset's flags). ${GRANT_422} An unknown channel: 404. ${SUDO} ${NO_ESCALATION}`,
      ),
      tag: USERS,
      permission: 'users_write',
      body: { schema: ref('ChannelGrantBody') },
      responses: { '200': ok('The channel permission.', ref('ChannelPermission')) },
      errors: ['403', '404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteUserChannelPermission',
      summary: "Remove a user's access to a channel",
      description: admin(`404 when the user has no permission there. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      responses: { '200': ok('Removed.', ref('Message')) },
      errors: ['403', '404'],
    }),
  },
  '/api/v1/users/{id}/channel_permissions/bulk': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'bulkPutUserChannelPermissions',
      summary: "Set a user's permissions in many channels",
      description: admin(
        `\`broadcast_channel_ids\` (1 to 1000) and one grant as for a single channel. Each channel is set on its own, no rollback: one that does not exist, or whose flags the caller does not hold, is answered in \`failed\`. ${GRANT_422} ${SUDO} ${NO_ESCALATION}`,
      ),
      tag: USERS,
      permission: 'users_write',
      body: { schema: ref('ChannelGrantBulkBody') },
      responses: { '200': ok('What was set and what was not.', ref('ChannelGrantBulkResult')) },
      errors: ['403', '404', '422'],
    }),
  },
  '/api/v1/users/{id}/system_permissions': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getUserSystemPermissions',
      summary: "Get a user's system permissions",
      description: admin('What the user may do over the whole installation.'),
      tag: USERS,
      permission: 'users_read',
      responses: { '200': ok('Every system permission.', ref('SystemPermissions')) },
      errors: ['403', '404'],
    }),
    patch: authenticated({
      operationId: 'updateUserSystemPermissions',
      summary: "Change a user's system permissions",
      description: admin(`Only those named change. An unknown one, or one that is not true or false: 422. ${SUDO} ${NO_ESCALATION}`),
      tag: USERS,
      permission: 'users_write',
      body: { schema: ref('SystemPermissionsBody') },
      responses: { '200': ok('Every system permission.', ref('SystemPermissions')) },
      errors: ['403', '404', '422'],
    }),
  },
};
