import type { ApiTokenRecord, Channel, EmailServer, EmailServerChanges, NewChannel, NewEmailServer } from './entities/channel';
import type { ApiTokenType, Permission } from '@mailcast/domain';

export interface ChannelRepository {
  create(channel: NewChannel): Promise<Channel>;
  findById(id: number): Promise<Channel | null>;
  findBySlug(slug: string): Promise<Channel | null>;
  count(): Promise<number>;
}

export interface ApiTokenRepository {
  create(token: {
    channelId: number | null;
    type: ApiTokenType;
    label: string | null;
    hash: Uint8Array;
    prefix: string;
    permissions: Permission[];
  }): Promise<ApiTokenRecord>;
  /** The token whose hash matches, revoked or not; the caller decides. */
  findByHash(hash: Uint8Array): Promise<(ApiTokenRecord & { hash: Uint8Array }) | null>;
  /** Returns false when no token has that id. Revoking twice keeps the first time. */
  revoke(id: number, at: Date): Promise<boolean>;
}

export interface EmailServerRepository {
  create(server: NewEmailServer): Promise<EmailServer>;
  /** Every server of the channel, active or not, oldest first. */
  listForChannel(channelId: number): Promise<EmailServer[]>;
  /** Scoped to the channel: another channel's server is null. */
  findById(channelId: number, id: number): Promise<EmailServer | null>;
  update(channelId: number, id: number, changes: EmailServerChanges): Promise<EmailServer | null>;
  delete(channelId: number, id: number): Promise<boolean>;
  /** Whether a broadcast that is scheduled, sending or paused names the server. */
  namedByPendingBroadcast(channelId: number, id: number): Promise<boolean>;
}
