import type { Broadcast, BroadcastLinkStatistics, BroadcastTimeline, SubjectTestReport } from '@mailcast/core';
import type { StatisticsSummary } from '@mailcast/domain';

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** Spec: Broadcast statistics summary (response shape), field for field. */
export function presentStatistics(broadcast: Broadcast, summary: StatisticsSummary, abTest: SubjectTestReport | null) {
  return {
    broadcast_id: broadcast.id,
    broadcast_name: broadcast.name,
    broadcast_subject: broadcast.subject,
    status: broadcast.status,
    total_recipients: broadcast.totalRecipients,
    sent_at: iso(broadcast.sentAt),
    begin_send_at: iso(broadcast.beginSendAt),
    created_at: iso(broadcast.createdAt),
    tracking: { track_opens: broadcast.trackOpens, track_clicks: broadcast.trackClicks },
    ...summary,
    // docs/subject-tests.md: null when the broadcast has no subject test.
    ab_test: abTest,
  };
}

/** Spec: Timeline response. */
export function presentTimeline(t: BroadcastTimeline) {
  return {
    broadcast_id: t.broadcastId,
    timeframe: t.timeframe,
    interval: t.interval,
    start_time: t.start.toISOString(),
    end_time: t.end.toISOString(),
    series: t.series,
  };
}

/** Spec: Link statistics response. */
export function presentLinkStatistics(l: BroadcastLinkStatistics) {
  return {
    broadcast_id: l.broadcastId,
    total_links: l.totalLinks,
    total_clicks: l.totalClicks,
    links: l.links,
  };
}
