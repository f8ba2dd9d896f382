import { resolveReputationGuard, reputationVerdict, type ReputationCounts, type ReputationVerdict } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { broadcastEventData } from '../broadcasts/broadcast-events';
import { Clock, ReputationStore, Transactor } from '../ports';

/** The servers' window (docs/reputation-guard.md): their figures over the last 24 hours. */
export const SERVER_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a check did: the broadcast it paused (with why) and the servers it took out of rotation. */
export interface GuardOutcome {
  paused: ReputationVerdict | null;
  deactivated: Array<{ serverId: number; verdict: ReputationVerdict }>;
  /**
   * The broadcast has bounces or complaints but fewer than `min_sent` emails: not judged yet, so
   * the next outcomes must be looked at as they come (one may cross `min_sent` over the limit).
   */
  pending: boolean;
}

/**
 * The reputation guard (docs/reputation-guard.md). Called where hard bounces and complaints are
 * recorded (the sending pipeline's outcome commits, the bounce and complaint receivers): it reads
 * the counters of the broadcast and of the servers concerned, a few rows each, and acts when a
 * limit is crossed. Acting is conditional, so dispatchers checking at once act once.
 */
@injectable()
export class ReputationGuard {
  constructor(
    @inject(ReputationStore) private readonly store: ReputationStore,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async check(input: { broadcastId: number | null; serverIds: readonly number[] }): Promise<GuardOutcome> {
    const deactivated: GuardOutcome['deactivated'] = [];
    for (const serverId of new Set(input.serverIds)) {
      const verdict = await this.checkServer(serverId);
      if (verdict) deactivated.push({ serverId, verdict });
    }
    const judged = input.broadcastId === null ? { verdict: null, pending: false } : await this.checkBroadcast(input.broadcastId);
    return { paused: judged.verdict, deactivated, pending: judged.pending };
  }

  /**
   * Pauses a sending broadcast whose figures cross its channel's limits: the verdict when it did,
   * and whether its bounces or complaints wait for `min_sent` to be judged.
   */
  async checkBroadcast(broadcastId: number): Promise<{ verdict: ReputationVerdict | null; pending: boolean }> {
    const standing = await this.store.broadcastStanding(broadcastId);
    if (standing === null || standing.status !== 'sending') return { verdict: null, pending: false };
    const settings = resolveReputationGuard(standing.settings);
    // After a resume, only what came after the guard's pause is judged (docs/reputation-guard.md).
    const counts = since(standing.counts, standing.baseline);
    const verdict = reputationVerdict(settings, counts);
    if (verdict === null) {
      const pending = settings.enabled && counts.sent < settings.min_sent && counts.hard_bounces + counts.complaints > 0;
      return { verdict: null, pending };
    }
    await this.store.setBaseline(broadcastId, standing.counts);
    return { verdict: (await this.pause(standing.channelId, broadcastId, verdict)) ? verdict : null, pending: false };
  }

  /**
   * sending → paused with the guard's reason, and `broadcast.paused` with the figures, in one
   * transaction. Only from sending, and under the row lock: of two dispatchers crossing the line
   * together one pauses, and a person's pause or abort meanwhile is left alone.
   */
  async pause(channelId: number, broadcastId: number, verdict: ReputationVerdict): Promise<boolean> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const current = await r.broadcasts.lock(channelId, broadcastId);
      if (current === null || current.status !== 'sending') return false;
      const updated = await r.broadcasts.update(
        broadcastId,
        { statuses: ['sending'], version: current.version },
        { status: 'paused', pausedFrom: 'sending', pauseReason: verdict.reason },
        now,
      );
      if (updated === null) return false;
      await r.outbox.record({
        channelId,
        type: 'broadcast.paused',
        data: { ...broadcastEventData(updated), ...figures(verdict) },
        createdAt: now,
      });
      return true;
    });
  }

  /** Takes a server out of rotation when its last 24 h cross its channel's limits. */
  async checkServer(serverId: number): Promise<ReputationVerdict | null> {
    const now = this.clock.now();
    const standing = await this.store.serverStanding(serverId, new Date(now.getTime() - SERVER_WINDOW_MS));
    if (standing === null || !standing.active) return null;
    const verdict = reputationVerdict(resolveReputationGuard(standing.settings), standing.counts);
    if (verdict === null) return null;
    return (await this.store.deactivateServer(serverId, verdict.reason, now)) ? verdict : null;
  }

  /**
   * Counts an asynchronous hard bounce or complaint (docs/bounces.md), then checks its broadcast
   * and server. After the notification's transaction: see docs/reputation-guard.md for why.
   */
  async afterNotification(recipientId: number, kind: 'hard_bounce' | 'complaint'): Promise<GuardOutcome> {
    const counted = await this.store.countNotification(recipientId, kind, this.clock.now());
    if (counted === null) return { paused: null, deactivated: [], pending: false };
    return this.check({ broadcastId: counted.broadcastId, serverIds: counted.serverId === null ? [] : [counted.serverId] });
  }
}

/** What came after the guard's last pause (docs/reputation-guard.md, "After a resume"). */
export function since(counts: ReputationCounts, baseline: ReputationCounts | null): ReputationCounts {
  if (baseline === null) return counts;
  return {
    sent: Math.max(0, counts.sent - baseline.sent),
    hard_bounces: Math.max(0, counts.hard_bounces - baseline.hard_bounces),
    complaints: Math.max(0, counts.complaints - baseline.complaints),
  };
}

/** The `broadcast.paused` event's figures (docs/reputation-guard.md): the rest is the paused thing's own data. */
export function figures(v: ReputationVerdict) {
  return {
    reason: v.reason,
    sent: v.sent,
    hard_bounces: v.hard_bounces,
    complaints: v.complaints,
    hard_bounce_rate: v.hard_bounce_rate,
    complaint_rate: v.complaint_rate,
    limit: v.limit,
  };
}
