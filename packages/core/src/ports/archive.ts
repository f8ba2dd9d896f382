import type { Broadcast } from './entities/broadcast';

/**
 * The public archive's reads (docs/archive.md): a channel's archived broadcasts that went out
 * (`sent` or `partial_failure`, with a send time), newest sent first, and the archive flag,
 * which changes without bumping the broadcast's version, so publishing never disturbs a send.
 */
export interface BroadcastArchive {
  listPublished(channelId: number, limit: number): Promise<Broadcast[]>;
  findPublished(channelId: number, id: number): Promise<Broadcast | null>;
  /** null when the channel has no such broadcast. */
  setArchive(channelId: number, id: number, archive: boolean, now: Date): Promise<Broadcast | null>;
}
export const BroadcastArchive = Symbol.for('mailcast.BroadcastArchive');
