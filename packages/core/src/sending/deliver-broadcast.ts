import { finalStatus, senderAddress, sendRetryDelayMs, usableEmailServers, type EventType } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import {
  Clock,
  HtmlReader,
  Mailer,
  RandomSource,
  Repositories,
  Templates,
  Transactor,
  type Broadcast,
  type Channel,
  type EmailServer,
  type EmailEventRecord,
  type MailAddress,
  type MailOutcome,
  type OutboxEvent,
} from '../ports';
import { BroadcastRenderer } from './broadcast-renderer';
import { subscriberEventData } from '../subscribers/subscriber-events';
import { emailEventData } from './event-data';
import type { ClaimedRecipient, RecipientSettlement } from '../ports';
import { OutcomeFlusher } from './outcome-flusher';
import { QueueRecipients, broadcastEvent } from './queue-recipients';
import { SendingOptions } from './sending-options';
import { SendRateStore } from '../ports';
import { ServerGate, type DeferredOutcome } from './server-gate';

/** What one job did: the broadcast ended, another job carries on, or there was nothing to do. */
export type DeliveryResult = 'finished' | 'continued' | 'waiting' | 'stopped' | 'already_running' | 'nothing_to_do';

type Outcome = MailOutcome | DeferredOutcome | { kind: 'unsendable'; message: string };

interface PendingOutcome {
  recipient: ClaimedRecipient;
  outcome: Outcome;
  at: Date;
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
    @inject(Templates) private readonly templates: Templates,
    @inject(HtmlReader) private readonly htmlReader: HtmlReader,
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
    const servers = await this.servers(broadcast);
    const channel = await this.repositories.channels.findById(broadcast.channelId);
    const renderer = await BroadcastRenderer.prepare(broadcast, recipients, this.templates, this.htmlReader, this.random, o.publicUrl);
    const flusher = new OutcomeFlusher<PendingOutcome>((batch) => this.record(broadcast, batch), o.commitGroup);
    const deadline = Date.now() + o.sliceMs;
    const leaseUntil = () => new Date(this.clock.now().getTime() + o.leaseMs);

    const lease = new LeaseHold(() => this.clock.now().getTime(), o.leaseMs);
    const heartbeat = setInterval(() => {
      const at = this.clock.now().getTime();
      recipients.extendLeases(broadcast.id, worker, leaseUntil()).then(
        () => lease.confirm(at),
        () => undefined,
      );
    }, Math.max(50, Math.floor(o.leaseMs / 3)));
    try {
      for (;;) {
        const stop = await this.drain(broadcast, worker, servers, channel, renderer, flusher, deadline, leaseUntil, lease);
        if (stop === 'stopped') return 'stopped';
        if (stop === 'deadline') {
          await this.repositories.jobs.send('broadcasts.send', { broadcastId: broadcast.id });
          return 'continued';
        }
        const progress = await recipients.progress(broadcast.id, this.clock.now());
        if (progress.claimable > 0) continue;
        if (progress.leased > 0) {
          // Others are working (or died holding leases): wait and take over what expires.
          if (Date.now() > deadline || o.stopRequested?.() === true) {
            await this.repositories.jobs.send('broadcasts.send', { broadcastId: broadcast.id });
            return 'continued';
          }
          await sleep(Math.min(1000, Math.max(50, Math.floor(o.leaseMs / 4))));
          continue;
        }
        if (progress.nextAttemptAt !== null) {
          await this.repositories.jobs.send('broadcasts.send', { broadcastId: broadcast.id }, { startAfter: progress.nextAttemptAt });
          return 'waiting';
        }
        await this.finish(broadcast.id);
        return 'finished';
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * `concurrency` workers take recipients from a local queue that claims ahead in batches; each
   * worker sends one message and waits for its outcome to commit before taking the next, so at
   * most `concurrency` messages are ever sent-but-unrecorded (what a crash may resend).
   */
  private async drain(
    broadcast: Broadcast,
    worker: string,
    servers: EmailServer[],
    channel: Channel | null,
    renderer: BroadcastRenderer,
    flusher: OutcomeFlusher<PendingOutcome>,
    deadline: number,
    leaseUntil: () => Date,
    lease: LeaseHold,
  ): Promise<'exhausted' | 'deadline' | 'stopped'> {
    const o = this.options;
    const recipients = this.repositories.recipients;
    const local: ClaimedRecipient[] = [];
    let ended: 'exhausted' | 'deadline' | 'stopped' | null = null;
    let claiming: Promise<void> | null = null;
    let failure: unknown = null;
    // Where the next claim starts: past what this job claimed last, until that finds nothing.
    let cursor = 0;

    const refill = async (): Promise<void> => {
      if (Date.now() > deadline || o.stopRequested?.() === true) {
        ended = 'deadline';
        return;
      }
      const current = await recipients.findBroadcast(broadcast.id);
      if (current === null || current.status !== 'sending') {
        ended = 'stopped';
        return;
      }
      const claimedAt = this.clock.now().getTime();
      let claimed = await recipients.claim(broadcast.id, worker, this.clock.now(), leaseUntil(), o.claimBatchSize, cursor);
      if (claimed.length === 0 && cursor > 0) {
        // The rest of the list is done or held by others: what came due behind the cursor (a
        // retry, another worker's lapsed lease) is claimed from the start.
        cursor = 0;
        claimed = await recipients.claim(broadcast.id, worker, this.clock.now(), leaseUntil(), o.claimBatchSize, cursor);
      }
      lease.claimed(claimedAt);
      if (claimed.length === 0) {
        ended = 'exhausted';
        return;
      }
      cursor = claimed[claimed.length - 1]!.id;
      // Progress moves once per claim, not per commit: the broadcast row stays out of the
      // outcome transactions (no lock shared by every dispatcher); finish makes it exact.
      const progressed = claimed.filter((c) => !c.sendable).length + flusher.takeProcessed();
      if (progressed > 0) await recipients.addProgress(broadcast.id, progressed);
      for (const c of claimed) if (c.sendable) local.push(c);
    };
    const startRefill = (): Promise<void> =>
      (claiming ??= refill()
        .catch((error: unknown) => {
          failure = error;
          ended = 'stopped';
        })
        .finally(() => {
          claiming = null;
        }));
    const next = async (): Promise<ClaimedRecipient | null> => {
      while (local.length === 0 && ended === null) await startRefill();
      if (failure !== null || ended === 'stopped' || ended === 'deadline') return null;
      // A claim whose lease may have run out (heartbeats failing: the database is away) may
      // already be another dispatcher's: send nothing more, hand the rest over as at the end of
      // a slice (a fresh job; if the database is still away, the sweep after the lease).
      if (!lease.holds()) {
        ended = 'deadline';
        return null;
      }
      const recipient = local.shift() ?? null;
      if (local.length < o.concurrency && ended === null && claiming === null) void startRefill();
      return recipient;
    };

    // A worker that fails stops the others after their message in hand, so nothing is sent
    // once the job has given up (its claims then return after the lease).
    const work = async (): Promise<void> => {
      try {
        for (let r = await next(); r !== null; r = await next()) {
          flusher.begin();
          let outcome: Outcome;
          try {
            outcome = await this.deliver(broadcast, r, servers, channel, renderer);
          } catch (error) {
            flusher.abandon();
            throw error;
          }
          await flusher.push({ recipient: r, outcome, at: this.clock.now() });
        }
      } catch (error) {
        failure ??= error;
        ended = 'stopped';
      }
    };
    await Promise.all(Array.from({ length: o.concurrency }, work));
    if (claiming) await claiming;
    if (failure !== null) throw failure;
    if (local.length > 0) await recipients.release(worker, local.map((r) => r.id));
    const progressed = flusher.takeProcessed();
    if (progressed > 0) await recipients.addProgress(broadcast.id, progressed);
    return ended ?? 'exhausted';
  }

  private async deliver(
    broadcast: Broadcast,
    r: ClaimedRecipient,
    servers: EmailServer[],
    channel: Channel | null,
    renderer: BroadcastRenderer,
  ): Promise<Outcome> {
    if (servers.length === 0) return { kind: 'unsendable', message: 'No email server configured' };
    let email;
    try {
      email = await renderer.render({ recipientId: r.id, subscriber: r.subscriber });
    } catch (error) {
      return { kind: 'unsendable', message: `Rendering failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    // The server, and the moment, are the gate's: limits, throttling and reachability.
    return ServerGate.for(this.rates).send(servers, (server) =>
      this.mailer.send(server, {
        messageId: r.messageId,
        from: this.fromAddress(server, channel),
        to: r.subscriber.email,
        replyTo: broadcast.replyTo,
        subject: email.subject,
        text: email.text,
        html: email.html,
        headers: email.headers,
      }),
    );
  }

  /**
   * Records a group of outcomes set-based: one statement settles the recipient rows and writes
   * the email events and outbox events of those it settled. It needs no transaction around it,
   * so a group costs one round trip. A hard bounce also deactivates its subscriber, with a
   * subscriber.bounced event: such a group runs in a transaction, so both commit together.
   */
  private async record(b: Broadcast, batch: readonly PendingOutcome[]): Promise<number> {
    const plans = batch.map((item) => ({ item, plan: this.plan(item.recipient, item.outcome, item.at) }));
    const emailEvents: EmailEventRecord[] = [];
    const outbox: Array<{ recipientId: number; event: OutboxEvent }> = [];
    for (const { item, plan } of plans) {
      const c = item.recipient;
      const at = item.at;
      const base = { channelId: b.channelId, broadcastId: b.id, recipientId: c.id, subscriberId: c.subscriber.id, occurredAt: at };
      const facts = { recipientId: c.id, broadcastId: b.id, email: c.subscriber.email, messageId: c.messageId };
      const emit = (type: EventType, data: Record<string, unknown>) =>
        outbox.push({ recipientId: c.id, event: { channelId: b.channelId, type, data, createdAt: at } });
      // Handed to SMTP: the server answered, whatever it said (docs/broadcasts-and-sending.md: email.sent).
      if (plan.handed) {
        emailEvents.push({ ...base, kind: 'processed' });
        emit('email.sent', emailEventData(facts));
      }
      switch (plan.kind) {
        case 'delivered':
          emailEvents.push({ ...base, kind: 'delivered', data: { response: plan.reason } });
          emit('email.delivered', emailEventData({ ...facts, delivered: true }));
          break;
        case 'bounced':
          emailEvents.push({ ...base, kind: 'bounced', data: { code: plan.code, reason: plan.reason } });
          emit('email.bounced', emailEventData({ ...facts, bouncedReason: plan.reason }));
          break;
        case 'failed':
          emailEvents.push({ ...base, kind: 'failed', data: { reason: plan.reason } });
          emit('email.failed', emailEventData(facts));
          break;
        case 'delayed':
          emailEvents.push({ ...base, kind: 'delayed', data: { reason: plan.reason, next_attempt_at: plan.nextAttemptAt } });
          emit('email.delivery_delayed', emailEventData(facts));
          break;
      }
    }
    const group = {
      settlements: plans.map(({ item, plan }) => ({ id: item.recipient.id, settlement: plan.settlement })),
      emailEvents,
      outbox,
    };
    const bounced = plans.filter(({ plan }) => plan.kind === 'bounced').map(({ item }) => item);
    const settled =
      bounced.length === 0
        ? await this.repositories.recipients.settleWithEvents(group)
        : await this.transactor.run(async (r) => {
            const moved = await r.recipients.settleWithEvents(group);
            for (const item of bounced) {
              if (!moved.has(item.recipient.id)) continue;
              const subscriber = await r.recipients.deactivateSubscriber(item.recipient.subscriber.id, item.at);
              if (subscriber) {
                await r.outbox.record({ channelId: b.channelId, type: 'subscriber.bounced', data: subscriberEventData(subscriber), createdAt: item.at });
              }
            }
            return moved;
          });
    return plans.filter(({ item, plan }) => plan.kind !== 'delayed' && plan.kind !== 'deferred' && settled.has(item.recipient.id)).length;
  }

  /** What an outcome means for the recipient (docs/broadcasts-and-sending.md: 5xx hard bounce, 4xx delayed and retried). */
  private plan(
    c: ClaimedRecipient,
    outcome: Outcome,
    at: Date,
  ): {
    kind: 'delivered' | 'bounced' | 'failed' | 'delayed' | 'deferred';
    settlement: RecipientSettlement;
    handed: boolean;
    reason: string;
    code: number | null;
    nextAttemptAt?: string;
  } {
    if (outcome.kind === 'accepted') {
      return { kind: 'delivered', settlement: { status: 'sent', at }, handed: true, reason: outcome.response, code: null };
    }
    if (outcome.kind === 'deferred') {
      // Held back by the server's limits: back to the queue, and the attempt does not count.
      const settlement = { status: 'pending', nextAttemptAt: outcome.until, error: outcome.message, refundAttempt: true } as const;
      return { kind: 'deferred', settlement, handed: false, reason: outcome.message, code: null };
    }
    const reason = outcome.message;
    const code = outcome.kind === 'rejected' ? outcome.code : null;
    const handed = code !== null;
    if (outcome.kind === 'rejected' && outcome.permanent) {
      return { kind: 'bounced', settlement: { status: 'bounced', at, error: reason }, handed, reason, code };
    }
    const delay = outcome.kind === 'unsendable' ? null : sendRetryDelayMs(c.attempts, this.options.retryScheduleMs);
    if (delay === null) return { kind: 'failed', settlement: { status: 'failed', at, error: reason }, handed, reason, code };
    const next = new Date(at.getTime() + delay);
    return {
      kind: 'delayed',
      settlement: { status: 'pending', nextAttemptAt: next, error: reason },
      handed,
      reason,
      code,
      nextAttemptAt: next.toISOString(),
    };
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

/**
 * How long this job's claims are known to last. A claim sets a lease, and each heartbeat that
 * commits extends every claim of the worker; when heartbeats fail, the leases run out on their
 * own. The oldest lease is the later of the first claim and the last confirmed heartbeat. It
 * must still hold, with one heartbeat interval to spare, for the message about to be sent and
 * its outcome's commit.
 */
class LeaseHold {
  private confirmedAt: number | null = null;

  constructor(
    private readonly now: () => number,
    private readonly leaseMs: number,
  ) {}

  claimed(at: number): void {
    this.confirmedAt ??= at;
  }

  confirm(at: number): void {
    if (this.confirmedAt !== null && at > this.confirmedAt) this.confirmedAt = at;
  }

  holds(): boolean {
    return this.confirmedAt === null || this.now() < this.confirmedAt + this.leaseMs - this.leaseMs / 3;
  }
}
