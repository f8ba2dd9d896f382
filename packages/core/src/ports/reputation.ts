import type { PauseReason, ReputationCounts, ReputationGuardSettings } from '@mailcast/domain';

/** A channel's settings as stored: the guard keys it set, and its own sender (docs/reputation-guard.md). */
export interface StoredChannelSettings {
  reputationGuard: Partial<ReputationGuardSettings>;
  senderEmail: string | null;
  senderName: string | null;
}

/** What a settings write changes; absent keys stay as they are. */
export interface ChannelSettingsChanges {
  reputationGuard?: Partial<ReputationGuardSettings>;
  senderEmail?: string | null;
  senderName?: string | null;
}

/** A broadcast or server as the guard judges it: its channel's stored settings and its counters. */
export interface Standing {
  channelId: number;
  settings: Partial<ReputationGuardSettings>;
  counts: ReputationCounts;
}

/**
 * The reputation guard's reads and writes (docs/reputation-guard.md). Counts come from counters
 * kept as emails are settled and notifications recorded, never from a recount of recipients.
 */
export interface ReputationStore {
  findSettings(channelId: number): Promise<StoredChannelSettings | null>;
  /** Merges the guard keys over the stored ones in one statement (no lost update); null when no such channel. */
  updateSettings(channelId: number, changes: ChannelSettingsChanges): Promise<StoredChannelSettings | null>;
  /**
   * A broadcast's emails handed over, hard bounces and complaints, and the figures of its last
   * pause by the guard (null: none); null when no such broadcast.
   */
  broadcastStanding(broadcastId: number): Promise<(Standing & { status: string; baseline: ReputationCounts | null }) | null>;
  /** Remembers the figures the guard paused the broadcast at. */
  setBaseline(broadcastId: number, counts: ReputationCounts): Promise<void>;
  /** A server's figures over the hours from `since` on; null when no such server. */
  serverStanding(serverId: number, since: Date): Promise<(Standing & { active: boolean }) | null>;
  /** Takes the server out of rotation with the reason, if it is still active; true when it was. */
  deactivateServer(serverId: number, reason: PauseReason, at: Date): Promise<boolean>;
  /**
   * Counts an asynchronous hard bounce or complaint against its broadcast and the server that
   * sent it (the server recorded with the recipient's outcome). Answers both, or null.
   */
  countNotification(recipientId: number, kind: 'hard_bounce' | 'complaint', at: Date): Promise<{ broadcastId: number; serverId: number | null } | null>;
}
export const ReputationStore = Symbol.for('mailcast.ReputationStore');

/** A send_email step as the guard judges it (docs/reputation-guard.md, "Sequence email steps"). */
export interface StepStanding extends Standing {
  sequenceId: number;
  paused: boolean;
  /** The figures at the guard's last pause of the step; null: none. */
  baseline: ReputationCounts | null;
}

/** The guard's reads and writes for sequence email steps, from the steps' own counters. */
export interface StepReputationStore {
  /** The step's emails handed over and hard bounces, its channel's settings; null when no such step. */
  stepStanding(stepId: number): Promise<StepStanding | null>;
  /**
   * Pauses the step if it is not paused yet, keeping `counts` as its baseline, and records the
   * `broadcast.paused` event with `data`, in one transaction. True when it paused it.
   */
  pauseStep(stepId: number, reason: PauseReason, counts: ReputationCounts, data: Record<string, unknown>, at: Date): Promise<boolean>;
}
export const StepReputationStore = Symbol.for('mailcast.StepReputationStore');
