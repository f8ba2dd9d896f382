import { CreateChannel } from '@mailcast/core';
import { optional, required, type Command } from './command';

export const channelCreate: Command = {
  usage: 'channel create --name NAME [--from-email E] [--from-name N]',
  flags: { name: { type: 'string' }, 'from-email': { type: 'string' }, 'from-name': { type: 'string' } },
  async run(container, flags) {
    const { channel, token } = await container.resolve(CreateChannel).execute({
      name: required(flags, 'name'),
      fromEmail: optional(flags, 'from-email'),
      fromName: optional(flags, 'from-name'),
    });
    return {
      json: { channel: { id: channel.id, name: channel.name, slug: channel.slug }, token },
      human: `channel ${channel.id} "${channel.name}" created\napi token (shown once): ${token}`,
    };
  },
};
