import { CreateApiToken, RevokeApiToken } from '@mailcast/core';
import { positiveInteger, required, type Command } from './command';

export const tokenCreate: Command = {
  usage: 'token create --channel ID --permissions p1,p2,...',
  flags: { channel: { type: 'string' }, permissions: { type: 'string' } },
  async run(container, flags) {
    const issued = await container.resolve(CreateApiToken).execute({
      channelId: positiveInteger(flags, 'channel'),
      permissions: required(flags, 'permissions')
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    });
    return {
      json: { token: issued.token, id: issued.id, permissions: issued.permissions },
      human: `token ${issued.id} for channel ${issued.channelId} (${issued.permissions.join(', ')})\napi token (shown once): ${issued.token}`,
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
