import { emailServerFor, senderAddress } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { UnauthorizedError } from '../errors';
import { Repositories } from '../ports';

export interface ChannelStatus {
  channel: { id: number; name: string; senderEmail: string | null; senderName: string | null };
  emailServers: number;
  subscribers: { total: number; active: number };
  /**
   * Each kind of email can go out: an active email server to send through and a sender address
   * someone chose (docs/discovery.md, status). The three agree in Mailcast: one server and one
   * sender rule serve broadcasts, sequences and transactionals alike.
   */
  readiness: { broadcasts: boolean; sequences: boolean; transactionals: boolean };
}

@injectable()
export class GetChannelStatus {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal): Promise<ChannelStatus> {
    const channel = await this.repositories.channels.findById(caller.channelId);
    if (channel === null) throw new UnauthorizedError();
    const servers = await this.repositories.emailServers.listForChannel(caller.channelId);
    // The server an email goes through when none is named (the one rule for usable servers:
    // a switched-off one cannot send), and the sender the sending rule would put on it.
    const server = emailServerFor(servers);
    // Only an address someone set counts: the no-reply@<public host> fallback is a last resort
    // nobody chose, so it is not answered and does not make the channel ready.
    const senderEmail = server?.fromEmail ?? channel.fromEmail ?? null;
    const senderName = senderAddress(server ?? { fromEmail: null, fromName: null }, channel, 'localhost').name;
    const ready = server !== undefined && senderEmail !== null;
    const page = { limit: 1, offset: 0 };
    const [all, active] = await Promise.all([
      this.repositories.subscribers.list(caller.channelId, {}, page),
      this.repositories.subscribers.list(caller.channelId, { isActive: true }, page),
    ]);
    return {
      channel: { id: channel.id, name: channel.name, senderEmail, senderName },
      emailServers: servers.length,
      subscribers: { total: all.total, active: active.total },
      readiness: { broadcasts: ready, sequences: ready, transactionals: ready },
    };
  }
}
