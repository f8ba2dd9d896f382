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
    // A server switched off (`active: false`) cannot send.
    const sending = servers.filter((s) => s.active);
    return { channel: { id: channel.id, name: channel.name }, emailServers: servers.length, ready: sending.length > 0 };
  }
}
