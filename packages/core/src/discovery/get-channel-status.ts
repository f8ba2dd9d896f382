import { emailServerFor } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

export interface ChannelStatus {
  channel: { id: number; name: string };
  emailServers: number;
  /** The channel can send: it has an email server to send through (docs/discovery.md). */
  ready: boolean;
}

@injectable()
export class GetChannelStatus {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal): Promise<ChannelStatus> {
    const channel = await this.repositories.channels.findById(caller.channelId);
    if (channel === null) throw new UnauthorizedError();
    const servers = await this.repositories.emailServers.listForChannel(caller.channelId);
    // Ready: some email could go out, by the one rule for usable servers (a switched-off one cannot).
    const ready = emailServerFor(servers) !== undefined;
    return { channel: { id: channel.id, name: channel.name }, emailServers: servers.length, ready };
  }
}
