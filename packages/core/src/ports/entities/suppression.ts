import type { SuppressionReason } from '@mailcast/domain';

export interface Suppression {
  id: number;
  /** null: the installation-wide list. */
  channelId: number | null;
  /** Normalised, as subscribers' addresses are. */
  email: string;
  reason: SuppressionReason;
  createdAt: Date;
}

/** Which list: a channel's (its id) or the installation-wide one (null). */
export type SuppressionList = number | null;
