import { CreateApiToken, RevokeApiToken } from '@mailcast/core';
import { optional, positiveInteger, required, UsageError, type Command } from './command';

/**
 * A channel's token, or with --admin an admin (cross-channel) token that names a channel per
 * request and alone may change what every channel shares (docs/auth.md, Admin tokens).
 */
export const tokenCreate: Command = {
  usage: 'token create (--channel ID | --admin) --permissions p1,p2,... [--label L]',
  flags: { channel: { type: 'string' }, admin: { type: 'boolean' }, permissions: { type: 'string' }, label: { type: 'string' } },
  async run(container, flags) {
    const admin = flags.admin === true;
    if (admin && flags.channel !== undefined) throw new UsageError('--admin and --channel do not go together: an admin token names its channel per request');
    const issued = await container.resolve(CreateApiToken).execute({
      ...(admin ? { admin: true as const } : { channelId: positiveInteger(flags, 'channel') }),
      label: optional(flags, 'label'),
      permissions: required(flags, 'permissions')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    });
    const owner = issued.channelId === null ? `admin token ${issued.id}` : `token ${issued.id} for channel ${issued.channelId}`;
    return {
      json: admin
        ? { token: issued.token, id: issued.id, type: issued.type, permissions: issued.permissions }
        : { token: issued.token, id: issued.id, permissions: issued.permissions },
      human: `${owner}${issued.label ? ` "${issued.label}"` : ''} (${issued.permissions.join(', ')})\napi token (shown once): ${issued.token}`,
    };
  },
};

export const tokenRevoke: Command = {
  usage: 'token revoke --id N',
  flags: { id: { type: 'string' } },
  async run(container, flags) {
    const result = await container.resolve(RevokeApiToken).execute({ id: positiveInteger(flags, 'id') });
    return { json: result, human: `token ${result.revoked} revoked` };
  },
};
