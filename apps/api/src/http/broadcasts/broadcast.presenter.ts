import type { Broadcast } from '@mailcast/core';
import { percentageComplete } from '@mailcast/domain';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** The spec's Broadcast object. The input-only fields are echoed so a client can read back what it set. */
export function presentBroadcast(b: Broadcast) {
  return {
    id: b.id,
    name: b.name,
    subject: b.subject,
    preheader: b.preheader,
    body: b.body,
    html_body: b.htmlBody,
    include_unsubscribe_link: b.includeUnsubscribeLink,
    reply_to: b.replyTo,
    status: b.status,
    track_opens: b.trackOpens,
    track_clicks: b.trackClicks,
    total_recipients: b.totalRecipients,
    broadcast_recipients_count: b.broadcastRecipientsCount,
    percentage_complete: percentageComplete(b.broadcastRecipientsCount, b.totalRecipients),
    scheduled_send_at: iso(b.scheduledSendAt),
    scheduled_timezone: b.scheduledTimezone,
    sent_at: iso(b.sentAt),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
    tags: b.tags,
    segment_ids: b.segmentIds,
    topic_id: b.topicId,
    excluded_segment_ids: b.excludedSegmentIds,
    template_id: b.templateId,
    email_server_ids: b.emailServerIds,
    use_any_email_server: b.useAnyEmailServer,
    email_headers: b.emailHeaders,
    archive: b.archive,
    send_in_subscriber_timezone: b.sendInSubscriberTimezone,
    pause_reason: b.pauseReason ?? null,
    ab_test: b.abTest ?? null,
  };
}
