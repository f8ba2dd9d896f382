import { sendRetryDelayMs, type EventType } from '@mailcast/domain';
import type { Broadcast, ClaimedRecipient, EmailEventRecord, MailOutcome, OutboxEvent, OutcomeGroup, RecipientSettlement } from '../ports';
import { emailEventData } from './event-data';
import type { DeferredOutcome } from '@mailcast/send-engine';

/**
 * What sending one message came to: the mailer's answer, held back by the server's sending
 * limits (docs/sending-limits.md), or a reason it was never handed over.
 */
export type SendOutcome = MailOutcome | DeferredOutcome | { kind: 'unsendable'; message: string };

/** An outcome waiting to be recorded: who, what, and when it was known. */
export interface PendingOutcome {
  recipient: ClaimedRecipient;
  outcome: SendOutcome;
  at: Date;
  /** The email server that took the message (the last one tried); null when none was. */
  serverId?: number | null;
}

export interface SettlementDecision {
  kind: 'delivered' | 'bounced' | 'failed' | 'delayed' | 'deferred';
  settlement: RecipientSettlement;
  /** The SMTP server answered (whatever it said): the message counts as sent (email.sent). */
  handed: boolean;
  reason: string;
  code: number | null;
  nextAttemptAt?: string;
}

/**
 * What an outcome means for its recipient (docs/broadcasts-and-sending.md): accepted is sent;
 * a permanent (5xx) rejection is a hard bounce; anything else is retried on the schedule (`attempts` is the attempt that just
 * ended) until it runs out, then failed. A message that could not be built is failed at once.
 */
export function decideSettlement(outcome: SendOutcome, attempts: number, at: Date, retryScheduleMs: readonly number[]): SettlementDecision {
  if (outcome.kind === 'accepted') {
    return { kind: 'delivered', settlement: { status: 'sent', at }, handed: true, reason: outcome.response, code: null };
  }
  if (outcome.kind === 'deferred') {
    // Held back by the server's limits or its throttling answers: back to the queue until then,
    // and the attempt does not count. Never a bounce or a failure, and no event.
    const settlement = { status: 'pending', nextAttemptAt: outcome.until, error: outcome.message, refundAttempt: true } as const;
    return { kind: 'deferred', settlement, handed: false, reason: outcome.message, code: null };
  }
  const reason = outcome.message;
  const code = outcome.kind === 'rejected' ? outcome.code : null;
  const handed = code !== null;
  if (outcome.kind === 'rejected' && outcome.permanent) {
    return { kind: 'bounced', settlement: { status: 'bounced', at, error: reason }, handed, reason, code };
  }
  const delay = outcome.kind === 'unsendable' ? null : sendRetryDelayMs(attempts, retryScheduleMs);
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

/** The group commit of a batch of outcomes: settlements, email events and outbox events, in order. */
export function outcomeGroup(b: Broadcast, batch: ReadonlyArray<{ item: PendingOutcome; plan: SettlementDecision }>): OutcomeGroup {
  const emailEvents: EmailEventRecord[] = [];
  const outbox: Array<{ recipientId: number; event: OutboxEvent }> = [];
  for (const { item, plan } of batch) {
    const c = item.recipient;
    const at = item.at;
    const base = { channelId: b.channelId, broadcastId: b.id, recipientId: c.id, subscriberId: c.subscriber.id, occurredAt: at };
    const facts = { recipientId: c.id, broadcastId: b.id, email: c.subscriber.email, messageId: c.messageId };
    const emit = (type: EventType, data: Record<string, unknown>) =>
      outbox.push({ recipientId: c.id, event: { channelId: b.channelId, type, data, createdAt: at } });
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
  const settlements = batch.map(({ item, plan }) => ({
    id: item.recipient.id,
    settlement: plan.settlement,
    serverId: item.serverId ?? null,
    handed: plan.handed,
  }));
  return { settlements, emailEvents, outbox };
}
