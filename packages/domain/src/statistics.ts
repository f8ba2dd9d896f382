/**
 * Percentage of `count` over `denominator` on a 0–100 scale, rounded to two decimals
 * (docs/statistics.md: "a zero denominator gives 0"), clamped to [0, 100].
 *
 * Computed as round(count × 10 000 / denominator) / 100 rather than round((count × 100 /
 * denominator) × 100) / 100: the same formula, but a single division keeps exact halves exact,
 * so 201 / 20 000 rounds to 1.01 (half up, as by hand) instead of 1.00.
 */
export function percentage(count: number, denominator: number): number {
  if (!Number.isFinite(denominator) || denominator <= 0) return 0;
  const hundredths = Math.round((count * 10_000) / denominator);
  if (!Number.isFinite(hundredths)) return 0;
  return Math.min(100, Math.max(0, hundredths / 100));
}

/** Unique-recipient counts of one broadcast (docs/statistics.md: "Counts are of unique recipients"). */
export type StatisticsCounts = {
  totalRecipients: number;
  sent: number;
  failed: number;
  opens: number;
  clicks: number;
  /** Recipients with at least one open or click classified as a person's (docs/engagement.md). */
  humanOpens: number;
  humanClicks: number;
  uniqueLinksClicked: number;
  bounces: number;
  complaints: number;
  unsubscribes: number;
};

export type CountAndRate = { count: number; rate: number };

/** The delivery/engagement/issues part of the spec's "Broadcast statistics summary". */
export type StatisticsSummary = {
  delivery: { sent: number; failed: number; delivery_rate: number };
  engagement: { opens: CountAndRate; clicks: CountAndRate; unique_links_clicked: number; human_opens: CountAndRate; human_clicks: CountAndRate };
  issues: { bounces: CountAndRate; complaints: CountAndRate; unsubscribes: CountAndRate };
};

export function summarizeStatistics(c: StatisticsCounts): StatisticsSummary {
  // docs/statistics.md: delivery_rate is over total_recipients; every other rate is over sent.
  const overSent = (count: number): CountAndRate => ({ count, rate: percentage(count, c.sent) });
  return {
    delivery: {
      sent: c.sent,
      failed: c.failed,
      delivery_rate: percentage(c.sent, c.totalRecipients),
    },
    engagement: {
      opens: overSent(c.opens),
      clicks: overSent(c.clicks),
      unique_links_clicked: c.uniqueLinksClicked,
      human_opens: overSent(c.humanOpens),
      human_clicks: overSent(c.humanClicks),
    },
    issues: {
      bounces: overSent(c.bounces),
      complaints: overSent(c.complaints),
      unsubscribes: overSent(c.unsubscribes),
    },
  };
}
