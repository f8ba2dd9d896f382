import { finalStatus, providerHeaders, senderAddress, usableEmailServers } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import {
  BroadcastRendering,
  Clock,
  Mailer,
  MessageWithdrawn,
  RandomSource,
  Repositories,
  SendRateStore,
  Transactor,
  type Broadcast,
  type Channel,
  type EmailServer,
  type JobRenderer,
  type MailAddress,
} from '../ports';
import { BroadcastRenderer } from './broadcast-renderer';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { ClaimQueue, type QueueEnd } from './claim-queue';
import { LeaseHold, startHeartbeat } from './lease-hold';
import { decideSettlement, outcomeGroup, type PendingOutcome, type SendOutcome } from './outcome-settlement';
import type { ClaimedRecipient } from '../ports';
import { OutcomeFlusher } from './outcome-flusher';
import { QueueRecipients, broadcastEvent } from './queue-recipients';
import { retrying, forUpTo } from './retrying';
import { SendingOptions } from './sending-options';
import { ServerGate } from './server-gate';
import { watchStatus } from './status-watch';

/** What one job did: the broadcast ended, another job carries on, or there was nothing to do. */
export type DeliveryResult = 'finished' | 'continued' | 'waiting' | 'stopped' | 'already_running' | 'nothing_to_do';

/** What a job works with, looked up once. */
interface Job {
  broadcast: Broadcast;
  worker: string;
  servers: EmailServer[];
  channel: Channel | null;
  renderer: JobRenderer;
  /** A recipient's VERP envelope sender at a server's bounce domain (docs/bounces.md). */
  returnPath: (recipientId: number, bounceDomain: string) => string;
}

// One working loop per broadcast per process (keyed by the process's mailer): a second job of
// the same broadcast on this process would only double its in-flight messages.
const running = new WeakMap<object, Set<number>>();

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The `broadcasts.send` job: queues the recipients once, then sends in leased batches until the
 * broadcast is done, paused, or this job's time slice is up (then a fresh job carries on).
 * Any number of dispatchers run it for one broadcast at once; FOR UPDATE SKIP LOCKED and the
 * leases keep each recipient with one of them.
 */
@injectable()
export class DeliverBroadcast {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(BroadcastRendering) private readonly rendering: BroadcastRendering,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(SendingOptions) private readonly options: SendingOptions,
    @inject(QueueRecipients) private readonly queueing: QueueRecipients,
    @inject(SendRateStore) private readonly rates: SendRateStore,
  ) {}

  async execute(input: { broadcastId: number }): Promise<DeliveryResult> {
    let mine = running.get(this.mailer);
    if (mine === undefined) running.set(this.mailer, (mine = new Set()));
    if (mine.has(input.broadcastId)) return 'already_running';
    mine.add(input.broadcastId);
    try {
      let broadcast = await this.repositories.recipients.findBroadcast(input.broadcastId);
      if (broadcast === null) return 'nothing_to_do';
      if (broadcast.status === 'scheduled' || broadcast.status === 'queueing') {
        broadcast = await this.queueing.execute({ broadcastId: broadcast.id });
      }
      if (broadcast === null || broadcast.status !== 'sending') return 'nothing_to_do';
      return await this.send(broadcast);
    } finally {
      mine.delete(input.broadcastId);
    }
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
    const job = { broadcast, worker, ...(await this.persist(async () => this.prepare(broadcast))) };
    const now = () => this.clock.now().getTime();
    const deadline = now() + o.sliceMs;
    const handOver = () => now() > deadline || o.stopRequested?.() === true;
    const lease = new LeaseHold(now, o.leaseMs);
    const heartbeat = startHeartbeat(lease, o.leaseMs, () => recipients.extendLeases(broadcast.id, worker, o.leaseMs));
    try {
      for (;;) {
        const stop = await this.drain(job, lease, handOver);
        if (stop === 'stopped') return 'stopped';
        if (stop === 'deadline') return await this.continueLater(broadcast.id);
        const progress = await this.persist(() => recipients.progress(broadcast.id, this.clock.now()));
        if (progress.claimable > 0) continue;
        if (progress.leased > 0) {
          // Others are working (or died holding leases): wait and take over what expires.
          if (handOver()) return await this.continueLater(broadcast.id);
          await sleep(Math.min(1000, Math.max(50, Math.floor(o.leaseMs / 4))));
          continue;
        }
        if (progress.nextAttemptAt !== null) {
          const startAfter = progress.nextAttemptAt;
          await this.persist(() => this.repositories.jobs.send('broadcasts.send', { broadcastId: broadcast.id }, { startAfter }));
          return 'waiting';
        }
        await this.persist(() => this.finish(broadcast.id));
        return 'finished';
      }
    } finally {
      heartbeat.stop();
      job.renderer.close();
    }
  }

  private async prepare(broadcast: Broadcast): Promise<Omit<Job, 'broadcast' | 'worker'>> {
    const recipients = this.repositories.recipients;
    return {
      servers: await this.servers(broadcast),
      channel: await this.repositories.channels.findById(broadcast.channelId),
      ...(await BroadcastRenderer.prepare(broadcast, recipients, this.rendering, this.random, this.options.publicUrl)),
    };
  }

  private async continueLater(broadcastId: number): Promise<'continued'> {
    await this.persist(() => this.repositories.jobs.send('broadcasts.send', { broadcastId }));
    return 'continued';
  }

  /** A statement safe to repeat, tried again through a database outage of up to a lease. */
  private persist<T>(work: () => Promise<T>): Promise<T> {
    return retrying(work, forUpTo(this.options.leaseMs));
  }

  /**
   * `concurrency` workers take recipients from the claim queue; each sends one message and
   * waits for its outcome to commit before taking the next, so at most `concurrency` messages
   * are ever sent-but-unrecorded. While the database is away those outcomes wait in memory and
   * their commit is tried again until it succeeds: the claims stay this job's (the heartbeat
   * extends them once the database is back), so nobody sends them again.
   */
  private async drain(job: Job, lease: LeaseHold, handOver: () => boolean): Promise<QueueEnd> {
    const o = this.options;
    const recipients = this.repositories.recipients;
    const b = job.broadcast;
    // A failed commit is tried again until the database has answered a heartbeat since the
    // group's first failure (it was away); after that, five more failures are an error of the
    // statement itself, and the job fails.
    let since = 0;
    let strikes = 0;
    const keepTrying = (_error: unknown, failures: number) => {
      if (failures === 1) [since, strikes] = [lease.time(), 0];
      return !lease.answeredSince(since) || ++strikes < 5;
    };
    const flusher = new OutcomeFlusher<PendingOutcome>((batch) => this.record(b, batch), o.commitGroup, keepTrying);
    const queue = new ClaimQueue(recipients, lease, {
      broadcastId: b.id,
      worker: job.worker,
      concurrency: o.concurrency,
      claimBatchSize: o.claimBatchSize,
      leaseMs: o.leaseMs,
      now: () => this.clock.now(),
      handOver,
      // Progress moves once per claim, not per commit: the broadcast row stays out of the
      // outcome transactions (no lock shared by every dispatcher); finish makes it exact.
      afterClaim: async (skipped) => {
        const progressed = skipped + flusher.takeProcessed();
        if (progressed > 0) await recipients.addProgress(b.id, progressed);
      },
    });

    // A pause or an abort, seen within `statusPollMs`: nothing more is handed out, and the
    // messages not yet started on a connection are withdrawn (docs/sending-reliability.md).
    // One signal per worker, all aborted together: a message's waits listen to its worker's
    // signal, so no signal holds the listeners of a hundred messages (Node warns past ten).
    const withdrawals = Array.from({ length: o.concurrency }, () => new AbortController());
    const watch = watchStatus(() => recipients.statusOf(b.id), o.statusPollMs, () => {
      queue.stop('stopped');
      for (const withdrawal of withdrawals) withdrawal.abort();
    });

    // A worker that fails stops the others after their message in hand, so nothing is sent
    // once the job has given up (its claims then return after the lease).
    const work = async (withdrawal: AbortController): Promise<void> => {
      try {
        for (let r = await queue.next(); r !== null; r = await queue.next()) {
          flusher.begin();
          let outcome: SendOutcome;
          try {
            outcome = await this.deliver(b, r, job, withdrawal.signal);
          } catch (error) {
            flusher.abandon();
            // Never started: its claim is released below, uncounted, like the rest not sent.
            if (error instanceof MessageWithdrawn) continue;
            throw error;
          }
          await flusher.push({ recipient: r, outcome, at: this.clock.now() });
        }
      } catch (error) {
        queue.stop('stopped', error);
      }
    };
    try {
      await Promise.all(withdrawals.map(work));
    } finally {
      watch.stop();
    }
    await queue.unsent();
    if (queue.error !== null) throw queue.error;
    // Every message sent has its outcome committed: what the job still holds was never sent
    // (including a claim whose answer was lost with the connection).
    await this.persist(() => recipients.release(b.id, job.worker));
    const progressed = flusher.takeProcessed();
    if (progressed > 0) await this.persist(() => recipients.addProgress(b.id, progressed));
    return queue.ended ?? 'exhausted';
  }

  /** Rejects with MessageWithdrawn when `signal` aborts before the message started. */
  private async deliver(broadcast: Broadcast, r: ClaimedRecipient, job: Job, signal: AbortSignal): Promise<SendOutcome> {
    const { servers, channel, renderer, returnPath } = job;
    if (servers.length === 0) return { kind: 'unsendable', message: 'No email server configured' };
    let email;
    try {
      email = await renderer.render({ recipientId: r.id, subscriber: r.subscriber });
    } catch (error) {
      return { kind: 'unsendable', message: `Rendering failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (signal.aborted) throw new MessageWithdrawn();
    // The server, and the moment, are the gate's: limits, throttling and reachability.
    const room = this.options.smtpConnections ?? Infinity;
    return ServerGate.for(this.rates).send(
      servers,
      room,
      (server, clearance) =>
        this.mailer.send(
          server,
          {
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
          },
          signal,
          clearance,
        ),
      signal,
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

