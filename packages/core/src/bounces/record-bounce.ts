import { messageIdRecipient, normalizeMessageId, SOFT_BOUNCE_THRESHOLD, SOFT_BOUNCE_WINDOW_MS, verifyVerpToken, type BounceKind } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Repositories, type TrackedRecipient } from '../ports';
import { ReputationGuard } from '../reputation/reputation-guard';
import { emailEventData } from '../sending/event-data';
import { recipientEvent } from '../sending/tracked-recipient';
import { subscriberEventData } from '../subscribers/subscriber-events';

/** One bounce or complaint as a receiver understood it. */
export interface BounceReport {
  /** `ses`, `postmark`, `mailgun`, `sendgrid` or `dsn`. */
  source: string;
  kind: BounceKind;
  /** The Message-ID of the email it is about, with or without angle brackets. */
  messageId?: string | null;
  /** Or the recipient a VERP return path names, with the token to verify. */
  verp?: { recipientId: number; token: string };
  /** The address the notification names: when given, it must be the recipient's. */
  email?: string | null;
  reason: string;
}

/** `unknown`: no broadcast recipient matches (or the VERP token does not verify). */
export type BounceResult = 'recorded' | 'duplicate' | 'unknown';

const MAX_REASON = 1000;

/**
 * Records an asynchronous bounce or complaint in one transaction (see recordBounce). A DSN's
 * path: the provider receivers go through RecordNotification, which adds the replay guard.
 */
@injectable()
export class RecordBounce {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(ReputationGuard) private readonly guard: ReputationGuard,
  ) {}

  async execute(report: BounceReport): Promise<BounceResult> {
    const at = this.clock.now();
    const counted: GuardCount[] = [];
    const result = await this.transactor.run((r) => recordBounce(r, report, at, counted));
    await guardAfter(this.guard, counted);
    return result;
  }
}

/**
 * Records an asynchronous bounce or complaint (docs/bounces.md), once per recipient and kind:
 * the recipient's email is marked, the email event counted in the broadcast's statistics and
 * emitted; a hard bounce (or the soft bounce that reaches the threshold) deactivates the
 * subscriber and suppresses the address with reason `bounce`, a complaint unsubscribes and
 * suppresses with reason `complaint`, each with its subscriber event. In the caller's transaction.
 */
export async function recordBounce(r: Repositories, report: BounceReport, at: Date, counted: GuardCount[] = []): Promise<BounceResult> {
  const reason = report.reason.slice(0, MAX_REASON);
  const t = await findRecipient(r, report);
  if (t === null) return 'unknown';
  const email = t.subscriber.email;
  const claimed = await r.bounces.claim({
    channelId: t.channelId,
    recipientId: t.id,
    email,
    kind: report.kind,
    source: report.source,
    reason,
    occurredAt: at,
  });
  if (!claimed) return 'duplicate';
  const facts = { recipientId: t.id, broadcastId: t.broadcastId, email, messageId: t.messageId, openedAt: t.openedAt, clickedAt: t.clickedAt };
  const emit = (type: 'email.bounced' | 'email.complained' | 'subscriber.bounced' | 'subscriber.complained', data: object) =>
    r.outbox.record({ channelId: t.channelId, type, data: data as Record<string, unknown>, createdAt: at });

  if (report.kind === 'complaint') {
    await r.bounces.markComplained(t.id, at);
    await r.emailEvents.record({ ...recipientEvent(t, 'complained', at), data: { source: report.source, reason } });
    await emit('email.complained', {
      ...emailEventData({ ...facts, delivered: t.deliveredAt !== null }),
      complaint: true,
      complaint_reason: reason || null,
    });
    await r.suppressions.add(t.channelId, email, 'complaint', at);
    const subscriber = (await r.recipients.unsubscribeSubscriber(t.subscriber.id, at)) ?? t.subscriber;
    await emit('subscriber.complained', subscriberEventData(subscriber));
    counted.push({ recipientId: t.id, kind: 'complaint' });
    return 'recorded';
  }

  await r.bounces.markBounced(t.id, at, reason);
  await r.emailEvents.record({ ...recipientEvent(t, 'bounced', at), data: { source: report.source, type: report.kind, reason } });
  await emit('email.bounced', emailEventData({ ...facts, bouncedReason: reason }));
  if (report.kind === 'hard_bounce') counted.push({ recipientId: t.id, kind: 'hard_bounce' });
  const suppress =
    report.kind === 'hard_bounce' ||
    (await r.bounces.softBouncesSince(t.channelId, email, new Date(at.getTime() - SOFT_BOUNCE_WINDOW_MS))) >= SOFT_BOUNCE_THRESHOLD;
  if (suppress) {
    await r.suppressions.add(t.channelId, email, 'bounce', at);
    const subscriber = (await r.recipients.deactivateSubscriber(t.subscriber.id, at)) ?? t.subscriber;
    await emit('subscriber.bounced', subscriberEventData(subscriber));
  }
  return 'recorded';
}

/** The recipient the report names, by VERP token or Message-ID, checked against its address. */
async function findRecipient(r: Repositories, report: BounceReport): Promise<TrackedRecipient | null> {
  let t: (TrackedRecipient & { secret: Uint8Array | null }) | null = null;
  if (report.verp) {
    t = await r.recipients.findTracked(report.verp.recipientId);
    if (t === null || t.secret === null || !verifyVerpToken(t.secret, report.verp.token)) return null;
  } else {
    const messageId = normalizeMessageId(report.messageId);
    if (messageId === null || messageIdRecipient(messageId) === null) return null;
    const id = await r.bounces.recipientIdByMessageId(messageId);
    t = id === null ? null : await r.recipients.findTracked(id);
  }
  if (t === null) return null;
  const named = report.email?.trim().toLowerCase();
  if (named && named !== t.subscriber.email.toLowerCase()) return null;
  return t;
}

/** A hard bounce or complaint recorded, for the reputation guard once its transaction committed. */
export interface GuardCount {
  recipientId: number;
  kind: 'hard_bounce' | 'complaint';
}

/**
 * Counts what was recorded and lets the guard judge (docs/reputation-guard.md). The notification
 * is already committed and answered for: a failure here (the database away) loses that count
 * rather than making the provider send again a report that would then be a duplicate.
 */
export async function guardAfter(guard: ReputationGuard, counted: readonly GuardCount[]): Promise<void> {
  for (const c of counted) await guard.afterNotification(c.recipientId, c.kind).catch(() => undefined);
}
