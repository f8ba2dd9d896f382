import { inject, injectable } from 'tsyringe';
import { NO_CHANNEL, requireAdmin, requirePermission, type Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Repositories, type EmailServer } from '../ports';
import { EMAIL_SERVER_NOT_FOUND } from './email-server-rules';

/** Copies a server row into another channel as it is stored: its secrets stay sealed. */
export interface EmailServerCopier {
  /** The channel server `id` belongs to, whichever it is; null when there is no such server. */
  channelOf(id: number): Promise<number | null>;
  /**
   * Inserts a copy of server `id` of `sourceChannelId` into `targetChannelId`, in one statement;
   * null when the source channel has no such server.
   */
  copy(id: number, sourceChannelId: number, targetChannelId: number): Promise<EmailServer | null>;
}
export const EmailServerCopier = Symbol.for('mailcast.EmailServerCopier');

export const CROSS_CHANNEL_ADMIN_ONLY = 'Admin API token required for cross-channel operations';
export const SAME_CHANNEL_COPY = 'target_channel_id must name another channel';

/**
 * `POST /api/v1/email_servers/:id/copy_to_channel {target_channel_id}` (docs/email-servers.md,
 * "Copy to another channel"). Writing into a channel other than the caller's is an admin
 * token's alone: a channel token reaches no other channel, so it gets 403 whatever it names.
 */
@injectable()
export class CopyEmailServer {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(EmailServerCopier) private readonly copier: EmailServerCopier,
  ) {}

  async execute(principal: Principal, input: { id: number; targetChannelId: number }): Promise<EmailServer> {
    requireAdmin(principal, CROSS_CHANNEL_ADMIN_ONLY);
    requirePermission(principal, 'email_servers_write');
    // Named with broadcast_channel_id, the source must be that channel's; unnamed, the id alone finds it.
    const source = principal.channelId === NO_CHANNEL ? await this.copier.channelOf(input.id) : principal.channelId;
    if (source === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
    if (source === input.targetChannelId) throw new ValidationError(SAME_CHANNEL_COPY);
    if ((await this.repositories.channels.findById(input.targetChannelId)) === null) throw new NotFoundError('Channel not found');
    const copy = await this.copier.copy(input.id, source, input.targetChannelId);
    if (copy === null) throw new NotFoundError(EMAIL_SERVER_NOT_FOUND);
    return copy;
  }
}
