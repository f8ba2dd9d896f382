import type { BounceReport } from '@mailcast/core';

/** What a receiver makes of an authentic request: what to record, and the key that makes it single-use. */
export interface VerifiedNotification {
  /** null: the provider signs nothing unique; repeats are absorbed by recording once per recipient. */
  replayKey: string | null;
  reports: BounceReport[];
}
