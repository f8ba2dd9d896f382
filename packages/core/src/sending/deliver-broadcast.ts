import { finalStatus, providerHeaders, senderAddress, usableEmailServers } from '@mailcast/domain';
import type { LeasedRun, LeasedWork } from '@mailcast/send-engine';
import { inject, injectable } from 'tsyringe';
import {
  BroadcastRendering,
  Clock,
  RandomSource,
  Repositories,
  SegmentRepository,
  SendEngine,
  Transactor,
  type Broadcast,
  type Channel,
  type ClaimedRecipient,
  type EmailServer,
  type JobRenderer,
  type MailAddress,
} from '../ports';
import { BroadcastRenderer } from './broadcast-renderer';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { decideSettlement, outcomeGroup, type PendingOutcome, type SendOutcome } from './outcome-settlement';
import { QueueRecipients, broadcastEvent, excludedSegments } from './queue-recipients';
import { SendingOptions } from './sending-options';
import { ReputationGuard } from '../reputation/reputation-guard';

/** What one job did: the broadcast ended, another job carries on, or there was nothing to do. */
export type DeliveryResult = 'finished' | 'continued' | 'waiting' | 'stopped' | 'already_running' | 'nothing_to_do';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/** What a job works with, looked up once. */
interface Job {
  broadcast: Broadcast;
  servers: EmailServer[];
  channel: Channel | null;
  renderer: JobRenderer;
  /** A recipient's VERP envelope sender at a server's bounce domain (docs/bounces.md). */
  returnPath: (recipientId: number, bounceDomain: string) => string;
  /** When the reputation guard last looked at this broadcast (engine clock, ms). */
  guardedAt: number;
  /** Its last look found bounces or complaints below `min_sent`: look after every group until judged. */
  guardPending: boolean;
}

/**
 * The guard looks after every group with a hard bounce, and otherwise at most this often, so a
 * broadcast whose bounces came before `min_sent` is judged once it passes it (docs/reputation-guard.md).
 */
const GUARD_INTERVAL_MS = 1000;

/**
 * The `broadcasts.send` job: queues the recipients once, then has the send engine work them in
 * leased batches until the broadcast is done, paused, or this job's time slice is up (then a
 * fresh job carries on). Any number of dispatchers run it for one broadcast at once; FOR UPDATE
 * SKIP LOCKED and the leases keep each recipient with one of them.
 */
@injectable()
export class DeliverBroadcast {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SendEngine) private readonly engine: SendEngine,
    @inject(BroadcastRendering) private readonly rendering: BroadcastRendering,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(SendingOptions) private readonly options: SendingOptions,
    @inject(QueueRecipients) private readonly queueing: QueueRecipients,
    @inject(SegmentRepository) private readonly segments: SegmentRepository,
    @inject(ReputationGuard) private readonly guard: ReputationGuard,
  ) {}

  execute(input: { broadcastId: number }): Promise<DeliveryResult> {
    return this.engine.exclusive(`broadcast:${input.broadcastId}`, async () => {
      let broadcast = await this.repositories.recipients.findBroadcast(input.broadcastId);
      if (broadcast === null) return 'nothing_to_do';
      if (broadcast.status === 'scheduled' || broadcast.status === 'queueing') {
        broadcast = await this.queueing.execute({ broadcastId: broadcast.id });
      }
      if (broadcast === null || broadcast.status !== 'sending') return 'nothing_to_do';
      return await this.send(broadcast);
    });
  }

  private async servers(broadcast: Broadcast): Promise<EmailServer[]> {
    return usableEmailServers(broadcast, await this.repositories.emailServers.listForChannel(broadcast.channelId));
  }

  private fromAddress(server: EmailServer, channel: Channel | null): MailAddress {
    return senderAddress(server, channel, new URL(this.options.publicUrl).hostname);
  }

  private async send(broadcast: Broadcast): Promise<DeliveryResult> {
    const o = this.options;
    const recipients = this.repositories.recipients;
    const worker = `${o.workerName ?? 'worker'}:${hex(this.random.bytes(6))}`;
    const deadline = this.engine.now() + o.sliceMs;
    const handOver = () => this.engine.now() > deadline || o.stopRequested?.() === true;
    const job: Job = { broadcast, guardedAt: this.engine.now(), guardPending: false, ...(await this.engine.persist(() => this.prepare(broadcast), o.leaseMs)) };
    const run = this.engine.run(this.work(job), {
      worker,
      concurrency: o.concurrency,
      claimBatchSize: o.claimBatchSize,
      leaseMs: o.leaseMs,
      statusPollMs: o.statusPollMs,
      commitGroup: o.commitGroup,
      handOver,
    });
    try {
      for (;;) {
        const stop = await run.drain();
        if (stop === 'stopped') return 'stopped';
        if (stop === 'deadline') return await this.continueLater(run, broadcast.id);
        const progress = await run.persist(() => recipients.progress(broadcast.id, this.clock.now()));
        if (progress.claimable > 0) continue;
        if (progress.leased > 0) {
          // Others are working (or died holding leases): wait and take over what expires.
          if (handOver()) return await this.continueLater(run, broadcast.id);
          await this.engine.sleep(Math.min(1000, Math.max(50, Math.floor(o.leaseMs / 4))));
          continue;
        }
        if (progress.nextAttemptAt !== null) {
          const startAfter = progress.nextAttemptAt;
          await run.persist(() => this.repositories.jobs.send('broadcasts.send', { broadcastId: broadcast.id }, { startAfter }));
          return 'waiting';
        }
        // The rest of a subject test's list waits for the winner; the decision enqueues the send.
        if ((progress.held ?? 0) > 0) return 'waiting';
        await run.persist(() => this.finish(broadcast.id));
        return 'finished';
      }
    } finally {
      run.close();
      job.renderer.close();
    }
  }
  private async prepare(broadcast: Broadcast): Promise<Omit<Job, 'broadcast' | 'guardedAt' | 'guardPending'>> {
    const recipients = this.repositories.recipients;
    return {
      servers: await this.servers(broadcast),
      channel: await this.repositories.channels.findById(broadcast.channelId),
      ...(await BroadcastRenderer.prepare(broadcast, recipients, this.rendering, this.random, this.options.publicUrl)),
    };
  }

  private async continueLater(run: LeasedRun<ClaimedRecipient, PendingOutcome>, broadcastId: number): Promise<'continued'> {
    await run.persist(() => this.repositories.jobs.send('broadcasts.send', { broadcastId }));
    return 'continued';
  }

  /** The broadcast's recipients as the engine's leased work. */
  private work(job: Job): LeasedWork<ClaimedRecipient, PendingOutcome> {
    const recipients = this.repositories.recipients;
    const id = job.broadcast.id;
    return {
      goesOn: async () => (await recipients.statusOf(id)) === 'sending',
      claim: async ({ worker, afterId, limit, leaseMs }) => {
        // The exclusions as they stand at this claim: one read of a few segment rows a batch
        // (docs/topics.md, Audiences); the topic is read by the claim statement itself.
        const now = this.clock.now();
        const excluded = await excludedSegments(this.segments, job.broadcast, now);
        const claimed = await recipients.claim(id, worker, now, leaseMs, limit, afterId, excluded);
        const items = claimed.filter((c) => c.sendable);
        return { items, settled: claimed.length - items.length, lastId: claimed.at(-1)?.id ?? null };
      },
      extendLeases: (worker, leaseMs) => recipients.extendLeases(id, worker, leaseMs),
      release: (worker) => recipients.release(id, worker),
      // The broadcast row stays out of the outcome transactions (no lock shared by every
      // dispatcher); finish makes the count exact.
      progressed: (count) => recipients.addProgress(id, count),
      perform: async (recipient, signal) => {
        const sent: { serverId: number | null } = { serverId: null };
        const outcome = await this.deliver(recipient, job, signal, sent);
        return { recipient, outcome, at: this.clock.now(), serverId: sent.serverId };
      },
      record: async (group) => {
        const recorded = await this.record(job.broadcast, group);
        await this.guarded(job, group);
        return recorded;
      },
    };
  }

  /** Rejects with MessageWithdrawn when `signal` aborts before the message started. */
  private async deliver(r: ClaimedRecipient, job: Job, signal: AbortSignal, sent: { serverId: number | null }): Promise<SendOutcome> {
    const { broadcast, servers, channel, renderer, returnPath } = job;
    if (servers.length === 0) return { kind: 'unsendable', message: 'No email server configured' };
    let email;
    try {
      email = await renderer.render({ recipientId: r.id, subscriber: r.subscriber, variant: r.variant ?? null });
    } catch (error) {
      return { kind: 'unsendable', message: `Rendering failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    // The server, and the moment, are the engine's: limits, throttling and reachability.
    return this.engine.send(
      servers,
      (server) => {
        // The last server a message is built for is the one that answers (another is tried
        // only when one does not answer at all): its counters are the guard's (docs/reputation-guard.md).
        sent.serverId = server.id;
        return {
          messageId: r.messageId,
          from: this.fromAddress(server, channel),
          to: r.subscriber.email,
          replyTo: broadcast.replyTo,
          subject: email.subject,
          text: email.text,
          html: email.html,
          headers: { ...email.headers, ...providerHeaders(server.host, r.messageId) },
          // docs/bounces.md: a server with a bounce domain gets a VERP return path per recipient.
          envelopeFrom: server.bounceDomain ? returnPath(r.id, server.bounceDomain) : null,
        };
      },
      { signal },
    );
  }

  /**
   * Records a group of outcomes set-based: one statement settles the recipient rows and writes
   * the email events and outbox events of those it settled. It needs no transaction around it,
   * so a group costs one round trip. A hard bounce also deactivates its subscriber, with a
   * subscriber.bounced event, and suppresses the address: such a group runs in a transaction, so
   * all of it commits together. Safe to repeat: only still-claimed recipients are settled, and only
   * they get events.
   */
  private async record(b: Broadcast, batch: readonly PendingOutcome[]): Promise<number> {
    const plans = batch.map((item) => ({
      item,
      plan: decideSettlement(item.outcome, item.recipient.attempts, item.at, this.options.retryScheduleMs),
    }));
    const group = outcomeGroup(b, plans);
    const bounced = plans.filter(({ plan }) => plan.kind === 'bounced').map(({ item }) => item);
    const settled =
      bounced.length === 0
        ? await this.repositories.recipients.settleWithEvents(group)
        : await this.transactor.run(async (r) => {
            const moved = await r.recipients.settleWithEvents(group);
            for (const item of bounced) {
              if (!moved.has(item.recipient.id)) continue;
              // A hard bounce puts the address on the channel's list (docs/suppressions.md).
              await r.suppressions.add(b.channelId, item.recipient.subscriber.email, 'bounce', item.at);
              const subscriber = await r.recipients.deactivateSubscriber(item.recipient.subscriber.id, item.at);
              if (subscriber) {
                await r.outbox.record({ channelId: b.channelId, type: 'subscriber.bounced', data: subscriberEventData(subscriber), createdAt: item.at });
              }
            }
            return moved;
          });
    return plans.filter(({ item, plan }) => plan.kind !== 'delayed' && plan.kind !== 'deferred' && settled.has(item.recipient.id)).length;
  }

  /**
   * The reputation guard after a group commit (docs/reputation-guard.md): after every group with a
   * hard bounce, after every group while bounces wait for `min_sent` (so the group that reaches it
   * over the limit is judged at once, not a second later when the rest may be gone), else once a
   * second. A server it takes out of rotation leaves this job's list at
   * once (other jobs read the list when they start); with none left, the broadcast is paused with
   * the server's reason rather than failing its remaining recipients for want of a server. The
   * pause itself stops every dispatcher's run through its status watch. A failed check (the
   * database away) is left for the next one: the outcomes are already committed.
   */
  private async guarded(job: Job, group: readonly PendingOutcome[]): Promise<void> {
    const bounced = group.some((p) => p.outcome.kind === 'rejected' && p.outcome.permanent);
    const now = this.engine.now();
    if (!bounced && !job.guardPending && now - job.guardedAt < GUARD_INTERVAL_MS) return;
    job.guardedAt = now;
    const serverIds = [...new Set(group.flatMap((p) => (p.serverId == null ? [] : [p.serverId])))];
    try {
      const outcome = await this.guard.check({ broadcastId: job.broadcast.id, serverIds });
      job.guardPending = outcome.pending;
      if (outcome.deactivated.length === 0) return;
      const off = new Set(outcome.deactivated.map((d) => d.serverId));
      const left = job.servers.filter((s) => !off.has(s.id));
      // The last server stays in this job's list: its run stops with the pause, and a message
      // started meanwhile must not fail for want of a server.
      if (left.length > 0) job.servers.splice(0, job.servers.length, ...left);
      else if (outcome.paused === null) await this.guard.pause(job.broadcast.channelId, job.broadcast.id, outcome.deactivated[0]!.verdict);
    } catch {
      // Judged again with the next group.
    }
  }

  /** sending → sent | partial_failure | failed, exactly once (conditional move). */
  private async finish(id: number): Promise<void> {
    const now = this.clock.now();
    await this.transactor.run(async (r) => {
      const counts = await r.recipients.outcomeCounts(id);
      const status = finalStatus(counts);
      const moved = await r.recipients.transition(id, ['sending'], status, now, {
        sentAt: now,
        broadcastRecipientsCount: counts.processed,
      });
      const event = moved && broadcastEvent(moved, now);
      if (event) await r.outbox.record(event);
    });
  }
}
