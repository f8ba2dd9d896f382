import { broadcastEventType, sendInstantsByTimezone, type EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Repositories, SegmentRepository, Transactor, type Broadcast, type ExcludedSegments } from '../ports';
import { broadcastEventData } from '../broadcasts/broadcast-events';
import { SendingOptions } from './sending-options';
import { drawSubjectTestSample, scheduleSubjectTestDecision } from './subject-test';

const QUEUEING_PARALLELISM = 4;

/** The outbox event of a broadcast entering its current status (docs/broadcasts-and-sending.md: broadcast.<status>). */
export function broadcastEvent(broadcast: Broadcast, at: Date): { channelId: number; type: EventType; data: Record<string, unknown>; createdAt: Date } | null {
  const type = broadcastEventType(broadcast.status);
  return type ? { channelId: broadcast.channelId, type, data: broadcastEventData(broadcast), createdAt: at } : null;
}

/**
 * The broadcast's excluded segments' rules as they stand now (a deleted one excludes nobody);
 * undefined when it excludes none. Read at queueing and before each claim (docs/topics.md, Audiences).
 */
export async function excludedSegments(segments: SegmentRepository, broadcast: Broadcast, now: Date): Promise<ExcludedSegments | undefined> {
  if (broadcast.excludedSegmentIds.length === 0) return undefined;
  const found = await segments.findMany(broadcast.channelId, broadcast.excludedSegmentIds);
  return found.length === 0 ? undefined : { channelId: broadcast.channelId, definitions: found.map((s) => s.definition), now };
}

/**
 * scheduled → queueing → sending. The recipients are inserted set-based: a whole-channel
 * broadcast in subscriber-id batches, a segment broadcast in one statement. The unique
 * (broadcast, subscriber) key makes a repeated or concurrent run harmless, so a dispatcher that
 * died while queueing is simply followed by another one.
 */
@injectable()
export class QueueRecipients {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(SendingOptions) private readonly options: SendingOptions,
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
  ) {}

  /** The broadcast as it stands afterwards (sending, or paused/aborted meanwhile). */
  async execute(input: { broadcastId: number }): Promise<Broadcast | null> {
    const id = input.broadcastId;
    const broadcast = await this.repositories.recipients.findBroadcast(id);
    if (broadcast === null) return null;
    if (broadcast.status === 'scheduled') {
      const now = this.clock.now();
      await this.transactor.run(async (r) => {
        const moved = await r.recipients.transition(id, ['scheduled'], 'queueing', now, { beginSendAt: now });
        if (moved === null) return;
        // A resend of a failed broadcast tries the failed recipients again, never the sent ones.
        await r.recipients.retryFailed(id);
        const event = broadcastEvent(moved, now);
        if (event) await r.outbox.record(event);
      });
      const current = await this.repositories.recipients.findBroadcast(id);
      if (current === null || current.status !== 'queueing') return current;
    } else if (broadcast.status !== 'queueing') {
      return broadcast;
    }
    const host = new URL(this.options.publicUrl).hostname || 'mailcast.invalid';
    // Each recipient's Message-ID gets a random part of its own where it is inserted: one shared
    // by a broadcast's recipients let any of them derive another's (docs/bounces.md).
    const suffix = `@${host}`;
    const store = this.repositories.recipients;
    // The audience (docs/topics.md, Audiences): the segments or the whole channel, of those who
    // receive the topic, less the excluded segments' members as those segments stand now.
    const excluded = await excludedSegments(this.segments, broadcast, this.clock.now());
    const queued =
      broadcast.segmentIds.length > 0 ? await this.queueSegments(broadcast, suffix, excluded) : await this.queueChannel(broadcast, suffix, excluded);
    // A large broadcast changes the table's shape more than autovacuum notices in time; a small
    // one against a large table does not, and ANALYZE would cost more than the insert.
    await store.refreshStatistics(queued);
    await this.timeBySubscriberZone(broadcast);
    await drawSubjectTestSample(this.repositories, broadcast);
    const now = this.clock.now();
    await this.transactor.run(async (r) => {
      const counts = await r.recipients.outcomeCounts(id);
      const moved = await r.recipients.transition(id, ['queueing'], 'sending', now, {
        totalRecipients: counts.total,
        broadcastRecipientsCount: counts.processed,
      });
      if (moved === null) {
        // Paused or aborted while queueing: the list is complete all the same.
        await r.recipients.setTotalRecipients(id, counts.total);
        return;
      }
      const event = broadcastEvent(moved, now);
      if (event) await r.outbox.record(event);
      await scheduleSubjectTestDecision(r, moved, now);
      // Idle dispatchers pick these up and join; one already on this broadcast returns at once.
      for (let i = 0; i < this.options.helperJobs; i++) await r.jobs.send('broadcasts.send', { broadcastId: id });
    });
    return this.repositories.recipients.findBroadcast(id);
  }

  /**
   * Sending in each subscriber's time zone (docs/broadcasts-and-sending.md): each pending
   * recipient waits for the schedule's wall-clock time in their zone, as a retry waits, so the
   * claims, the progress and the job that wakes at the next instant are the ones a retry uses.
   * The instants are the domain's, one per distinct zone name. Safe to repeat (a rerun of
   * queueing times the same rows the same way).
   */
  private async timeBySubscriberZone(broadcast: Broadcast): Promise<void> {
    if (!broadcast.sendInSubscriberTimezone || broadcast.scheduledSendAt === null || broadcast.scheduledTimezone === null) return;
    const store = this.repositories.recipients;
    const zones = await store.pendingTimezones(broadcast.id);
    const { byTimezone, fallback } = sendInstantsByTimezone(broadcast.scheduledSendAt, broadcast.scheduledTimezone, zones);
    await store.timeRecipients(broadcast.id, byTimezone, fallback);
  }

  /**
   * The segments' members in one statement that starts from their rules' indexes
   * (docs/segments.md, Queueing): splitting them by subscriber id instead would make every part
   * walk its id range by primary key and test each subscriber. One statement is also one
   * transaction, so a crash leaves all of them or none, and a rerun inserts only what is missing.
   */
  private async queueSegments(broadcast: Broadcast, suffix: string, excluded: ExcludedSegments | undefined): Promise<number> {
    // The segments' rules as they stand now; a deleted one adds nobody.
    const definitions = (await this.segments.findMany(broadcast.channelId, broadcast.segmentIds)).map((s) => s.definition);
    return this.repositories.recipients.materializeAudience(broadcast, suffix, { definitions, now: this.clock.now() }, excluded);
  }

  /** The whole channel: disjoint subscriber-id ranges, inserted side by side on their own connections. */
  private async queueChannel(broadcast: Broadcast, suffix: string, excluded: ExcludedSegments | undefined): Promise<number> {
    const store = this.repositories.recipients;
    const range = await store.subscriberIdRange(broadcast.channelId);
    if (range === null) return 0;
    const parts = QUEUEING_PARALLELISM;
    const span = Math.ceil((range.max - range.min + 1) / parts);
    const counts = await Promise.all(
      Array.from({ length: parts }, async (_, i) => {
        const upTo = i === parts - 1 ? range.max : range.min - 1 + span * (i + 1);
        let count = 0;
        for (let after = range.min - 1 + span * i; ;) {
          const batch = await store.materialize(broadcast, after, upTo, this.options.materializeBatchSize, suffix, excluded);
          if (batch === null) return count;
          count += batch.count;
          after = batch.last;
        }
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  }
}
