import type { ApiTokenDetails, ApiTokenRecord, Channel, EmailServer, EmailServerChanges, NewChannel, NewEmailServer } from './entities/channel';
import type { ApiTokenType, BrandKitPatch, Permission } from '@mailcast/domain';

export interface ChannelRepository {
  create(channel: NewChannel): Promise<Channel>;
  findById(id: number): Promise<Channel | null>;
  findBySlug(slug: string): Promise<Channel | null>;
  count(): Promise<number>;
  /** The brand kit keys the channel set (docs/brand-kit.md); null when no such channel. */
  findDesign(id: number, options?: { forUpdate?: boolean }): Promise<BrandKitPatch | null>;
  /** Replaces what the channel set; false when no such channel. */
  saveDesign(id: number, design: BrandKitPatch): Promise<boolean>;
}

export interface ApiTokenRepository {
  create(token: {
    channelId: number | null;
    type: ApiTokenType;
    label: string | null;
    hash: Uint8Array;
    prefix: string;
    /** The token's last four characters, for whoami's redacted_value (docs/discovery.md). */
    suffix: string;
    permissions: Permission[];
  }): Promise<ApiTokenRecord>;
  /** By id, revoked or not, with what whoami shows of it. */
  findById(id: number): Promise<ApiTokenDetails | null>;
  /**
   * Records that the token was used at `at`: written at most once a minute per token
   * (docs/discovery.md, last_used_at), so requests never become a storm of writes.
   */
  markUsed(id: number, at: Date): Promise<void>;
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
