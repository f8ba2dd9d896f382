import fc from 'fast-check';
import { percentage, summarizeStatistics } from './statistics';

describe('percentage', () => {
  test.each([
    [0, 0, 0],
    [5, 0, 0],
    [0, 10, 0],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [1, 6, 16.67],
    [1, 7, 14.29],
    [1, 8, 12.5],
    [7, 8, 87.5],
    [10, 10, 100],
    [11, 10, 100],
    [-1, 10, 0],
    [1, 20_000, 0.01], // 0.005 % rounds half up
    [1, 20_001, 0], // just under half
    [201, 20_000, 1.01], // 1.005 %: exact half, up (the naive formula gives 1.00)
    [999, 1000, 99.9],
    [9_999, 10_000, 99.99],
    [99_999, 100_000, 100], // 99.999 % rounds to 100
  ])('%i / %i → %d', (count, denominator, expected) => {
    expect(percentage(count, denominator)).toBe(expected);
  });

  test.each([
    [Number.NaN, 10],
    [1, Number.NaN],
    [1, Number.POSITIVE_INFINITY],
    [1, -5],
  ])('degenerate input %d / %d gives 0', (count, denominator) => {
    expect(percentage(count, denominator)).toBe(0);
  });

  test('property: in [0, 100] with at most two decimals when count ≤ denominator', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }).chain((denominator) => fc.tuple(fc.integer({ min: 0, max: denominator }), fc.constant(denominator))),
        ([count, denominator]) => {
          const p = percentage(count, denominator);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(100);
          expect(String(p)).toMatch(/^\d+(\.\d{1,2})?$/);
          // Within half a hundredth of the exact value.
          if (denominator > 0) expect(Math.abs(p - (count * 100) / denominator)).toBeLessThanOrEqual(0.005 + 1e-9);
        },
      ),
    );
  });
});

describe('summarizeStatistics', () => {
  test('hand-computed example: delivery over recipients, everything else over sent', () => {
    const summary = summarizeStatistics({
      totalRecipients: 1200,
      sent: 1000,
      failed: 200,
      opens: 333,
      clicks: 125,
      humanOpens: 201,
      humanClicks: 99,
      uniqueLinksClicked: 4,
      bounces: 7,
      complaints: 1,
      unsubscribes: 15,
    });
    expect(summary).toEqual({
      delivery: { sent: 1000, failed: 200, delivery_rate: 83.33 }, // 1000 / 1200
      engagement: {
        opens: { count: 333, rate: 33.3 },
        clicks: { count: 125, rate: 12.5 },
        unique_links_clicked: 4,
        // docs/engagement.md: unique human recipients, over sent like every other rate.
        human_opens: { count: 201, rate: 20.1 },
        human_clicks: { count: 99, rate: 9.9 },
      },
      issues: {
        bounces: { count: 7, rate: 0.7 },
        complaints: { count: 1, rate: 0.1 },
        unsubscribes: { count: 15, rate: 1.5 },
      },
    });
  });

  test('nothing sent: every rate is 0, not NaN', () => {
    const summary = summarizeStatistics({
      totalRecipients: 0,
      sent: 0,
      failed: 0,
      opens: 0,
      clicks: 0,
      humanOpens: 0,
      humanClicks: 0,
      uniqueLinksClicked: 0,
      bounces: 0,
      complaints: 0,
      unsubscribes: 0,
    });
    expect(summary.delivery.delivery_rate).toBe(0);
    expect(summary.engagement.opens.rate).toBe(0);
    expect(summary.issues.unsubscribes.rate).toBe(0);
  });

  test('all failed: delivery rate 0 while issue rates stay 0 (denominator sent = 0)', () => {
    const summary = summarizeStatistics({
      totalRecipients: 3,
      sent: 0,
      failed: 3,
      opens: 0,
      clicks: 0,
      humanOpens: 0,
      humanClicks: 0,
      uniqueLinksClicked: 0,
      bounces: 3,
      complaints: 0,
      unsubscribes: 0,
    });
    expect(summary.delivery).toEqual({ sent: 0, failed: 3, delivery_rate: 0 });
    expect(summary.issues.bounces).toEqual({ count: 3, rate: 0 });
  });

  test('property: every rate in [0, 100] with at most two decimals', () => {
    const counts = fc.integer({ min: 0, max: 1_000_000 }).chain((totalRecipients) =>
      fc.integer({ min: 0, max: totalRecipients }).chain((sent) => {
        const upToSent = fc.integer({ min: 0, max: sent });
        return fc.record({
          totalRecipients: fc.constant(totalRecipients),
          sent: fc.constant(sent),
          failed: fc.integer({ min: 0, max: totalRecipients - sent }),
          opens: upToSent,
          clicks: upToSent,
          humanOpens: upToSent,
          humanClicks: upToSent,
          uniqueLinksClicked: fc.integer({ min: 0, max: 1000 }),
          bounces: upToSent,
          complaints: upToSent,
          unsubscribes: upToSent,
        });
      }),
    );
    fc.assert(
      fc.property(counts, (c) => {
        const s = summarizeStatistics(c);
        const rates = [
          s.delivery.delivery_rate,
          s.engagement.opens.rate,
          s.engagement.clicks.rate,
          s.issues.bounces.rate,
          s.issues.complaints.rate,
          s.issues.unsubscribes.rate,
        ];
        for (const r of rates) {
          expect(r).toBeGreaterThanOrEqual(0);
          expect(r).toBeLessThanOrEqual(100);
          expect(Math.round(r * 100) / 100).toBe(r);
        }
      }),
    );
  });
});
