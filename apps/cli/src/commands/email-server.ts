import { AddEmailServer } from '@mailcast/core';
import { defaultSmtpTls, isSmtpTls, SMTP_TLS_MODES } from '@mailcast/domain';
import { optional, optionalPositiveInteger, positiveInteger, required, UsageError, type Command, type CommandIo, type Flags } from './command';

/**
 * The password never comes from argv, where `ps` and shell history would show it
 * (docs/email-servers.md): `--pass-stdin` reads it from standard input, else SMTP_PASSWORD.
 */
async function password(flags: Flags, io: CommandIo): Promise<string | null> {
  if (flags.pass !== undefined) {
    throw new UsageError('--pass is refused: a password on the command line shows in ps and in shell history; pipe it to --pass-stdin or set SMTP_PASSWORD');
  }
  if (flags['pass-stdin'] === true) {
    const read = (await io.readStdin()).replace(/\r?\n$/, '');
    if (read === '') throw new UsageError('--pass-stdin read an empty password from standard input');
    return read;
  }
  return optional({ value: io.env.SMTP_PASSWORD }, 'value');
}

function tls(flags: Flags, host: string) {
  const chosen = optional(flags, 'tls');
  if (chosen === null) return defaultSmtpTls(host, flags.secure === true);
  if (!isSmtpTls(chosen)) throw new UsageError(`--tls must be one of ${SMTP_TLS_MODES.join(', ')}`);
  if (flags.secure === true && chosen !== 'implicit') throw new UsageError(`--secure means --tls implicit, not --tls ${chosen}`);
  return chosen;
}

export const emailServerAdd: Command = {
  usage:
    'email-server add --channel ID --host H --port P [--tls starttls|implicit|none] [--secure] [--user U [--pass-stdin]] [--name N] [--from-email E] [--from-name N] [--max-per-second N] [--max-per-minute N] [--max-per-hour N] [--max-per-day N] [--bounce-domain D]   (password: --pass-stdin or SMTP_PASSWORD)',
  flags: {
    channel: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    tls: { type: 'string' },
    secure: { type: 'boolean' },
    user: { type: 'string' },
    pass: { type: 'string' },
    'pass-stdin': { type: 'boolean' },
    name: { type: 'string' },
    'from-email': { type: 'string' },
    'from-name': { type: 'string' },
    'max-per-second': { type: 'string' },
    'max-per-minute': { type: 'string' },
    'max-per-hour': { type: 'string' },
    'max-per-day': { type: 'string' },
    'bounce-domain': { type: 'string' },
  },
  async run(container, flags, io) {
    const host = required(flags, 'host');
    const server = await container.resolve(AddEmailServer).execute({
      channelId: positiveInteger(flags, 'channel'),
      name: optional(flags, 'name'),
      host,
      port: positiveInteger(flags, 'port'),
      tls: tls(flags, host),
      username: optional(flags, 'user'),
      password: await password(flags, io),
      fromEmail: optional(flags, 'from-email'),
      fromName: optional(flags, 'from-name'),
      maxPerSecond: optionalPositiveInteger(flags, 'max-per-second'),
      maxPerMinute: optionalPositiveInteger(flags, 'max-per-minute'),
      maxPerHour: optionalPositiveInteger(flags, 'max-per-hour'),
      maxPerDay: optionalPositiveInteger(flags, 'max-per-day'),
      bounceDomain: optional(flags, 'bounce-domain'),
    });
    return {
      json: { email_server: { id: server.id, host: server.host, port: server.port } },
      human: `email server ${server.id} (${server.host}:${server.port}, tls ${server.tls}) added to channel ${server.channelId}`,
    };
  },
};
