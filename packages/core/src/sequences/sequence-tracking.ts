import { classifyEngagement, sequenceTokenIds, verifySequenceUnsubscribeToken, type EmailEventData } from '@mailcast/domain';
import type { Repositories, TrackedSequenceEmail } from '../ports';
import { ENGAGEMENT_WINDOW_MS, UNDESCRIBED_REQUEST, type TrackingRequest } from '../sending/tracked-recipient';

/**
 * Opens and clicks of sequence emails (docs/sequences.md, "Tracking"). Their links carry the
 * email's own token (`q<enrolment>.<step>-<MAC>`, the one its unsubscribe link carries), so the
 * public tracking routes tell them from a broadcast's by its shape. Each recorded open or click
 * is classified as a person's or a machine's (docs/engagement.md), kept on the email's run, in
 * email_events and the step's counters, and emitted as email.opened / email.clicked.
 */

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** Whether a tracking token is a sequence email's (else a broadcast recipient's). */
export const isSequenceToken = (token: string): boolean => sequenceTokenIds(token) !== null;

/** The data of a sequence email's email.* event (receipted_type SequenceStep). */
export function sequenceEmailEventData(f: {
  enrolmentId: number;
  sequenceId: number;
  stepId: number;
  email: string;
  messageId: string;
  delivered: boolean;
  openedAt?: Date | null;
  clickedAt?: Date | null;
  bouncedReason?: string | null;
}): EmailEventData & { sequence_id: number; sequence_step_id: number } {
  return {
    receipt_id: f.enrolmentId,
    email: f.email,
    identifier: f.messageId,
    receipted_type: 'SequenceStep',
    receipted_id: f.stepId,
    delivered: f.delivered,
    opened: f.openedAt != null,
    clicked: f.clickedAt != null,
    bounced: f.bouncedReason != null,
    complaint: false,
    unsubscribed: false,
    opened_at: iso(f.openedAt ?? null),
    clicked_at: iso(f.clickedAt ?? null),
    bounced_reason: f.bouncedReason ?? null,
    complaint_reason: null,
    sequence_id: f.sequenceId,
    sequence_step_id: f.stepId,
  };
}

/** The email a sequence token names, if its MAC verifies under the sequence's secret. */
async function trackedEmail(r: Repositories, token: string): Promise<TrackedSequenceEmail | null> {
  const ids = sequenceTokenIds(token);
  if (ids === null) return null;
  const t = await r.sequences.findTrackedEmail(ids.enrolmentId, ids.stepId);
  if (t === null || t.secret === null || !verifySequenceUnsubscribeToken(t.secret, token)) return null;
  return t;
}

/** Records one engagement that passed the window: its classification, event, counters and webhook. */
async function record(r: Repositories, t: TrackedSequenceEmail, kind: 'opened' | 'clicked', at: Date, first: boolean, request: TrackingRequest, url?: string) {
  const verdict = classifyEngagement({ kind: kind === 'opened' ? 'open' : 'click', ...request, deliveredAt: t.deliveredAt, at });
  await r.sequences.recordEngagement(t, { kind, at, first, machine: verdict.machine, machineReason: verdict.machine_reason, url });
  const data = sequenceEmailEventData({
    ...t,
    email: t.subscriber.email,
    messageId: t.messageId ?? '',
    delivered: t.deliveredAt !== null,
    openedAt: kind === 'opened' ? (t.openedAt ?? at) : t.openedAt,
    clickedAt: kind === 'clicked' ? (t.clickedAt ?? at) : t.clickedAt,
  });
  await r.outbox.record({
    channelId: t.channelId,
    type: kind === 'opened' ? 'email.opened' : 'email.clicked',
    data: { ...data, machine: verdict.machine },
    createdAt: at,
  });
}

/** The open pixel of a sequence email: whether the token names one (a repeat within the window is served, not recorded). */
export async function recordSequenceOpen(r: Repositories, token: string, request: TrackingRequest = UNDESCRIBED_REQUEST, at: Date): Promise<boolean> {
  const t = await trackedEmail(r, token);
  if (t === null) return false;
  if (!t.ran) return true;
  const marked = await r.sequences.markEmailEngaged(t, 'opened', at, new Date(at.getTime() - ENGAGEMENT_WINDOW_MS));
  if (marked !== null) await record(r, t, 'opened', at, marked.first, request);
  return true;
}

/** A tracked link of a sequence email: the stored URL (only ever that), or null for an unknown token or link. */
export async function recordSequenceClick(
  r: Repositories,
  token: string,
  identifier: string,
  request: TrackingRequest = UNDESCRIBED_REQUEST,
  at: Date,
): Promise<string | null> {
  const t = await trackedEmail(r, token);
  if (t === null) return null;
  const link = await r.sequences.findStepLink(t.stepId, identifier);
  if (link === null) return null;
  if (!t.ran) return link.url;
  const marked = await r.sequences.markEmailEngaged(t, 'clicked', at, new Date(at.getTime() - ENGAGEMENT_WINDOW_MS), link.id);
  if (marked !== null) await record(r, t, 'clicked', at, marked.first, request, link.url);
  return link.url;
}
