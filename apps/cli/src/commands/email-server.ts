import { AddEmailServer } from '@mailcast/core';
import { optional, optionalPositiveInteger, positiveInteger, required, type Command } from './command';

export const emailServerAdd: Command = {
  usage:
    'email-server add --channel ID --host H --port P [--secure] [--user U --pass P] [--from-email E] [--from-name N] ' +
    '[--max-per-second N] [--max-per-minute N] [--max-per-hour N] [--max-per-day N]',
  flags: {
    channel: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    secure: { type: 'boolean' },
    user: { type: 'string' },
    pass: { type: 'string' },
    'from-email': { type: 'string' },
    'from-name': { type: 'string' },
    'max-per-second': { type: 'string' },
    'max-per-minute': { type: 'string' },
    'max-per-hour': { type: 'string' },
    'max-per-day': { type: 'string' },
  },
  async run(container, flags) {
    const server = await container.resolve(AddEmailServer).execute({
      channelId: positiveInteger(flags, 'channel'),
      host: required(flags, 'host'),
      port: positiveInteger(flags, 'port'),
      secure: flags.secure === true,
      username: optional(flags, 'user'),
      password: optional(flags, 'pass'),
      fromEmail: optional(flags, 'from-email'),
      fromName: optional(flags, 'from-name'),
      maxPerSecond: optionalPositiveInteger(flags, 'max-per-second'),
      maxPerMinute: optionalPositiveInteger(flags, 'max-per-minute'),
      maxPerHour: optionalPositiveInteger(flags, 'max-per-hour'),
      maxPerDay: optionalPositiveInteger(flags, 'max-per-day'),
    });
    return {
      json: { email_server: { id: server.id, host: server.host, port: server.port } },
      human: `email server ${server.id} (${server.host}:${server.port}) added to channel ${server.channelId}`,
    };
  },
};
