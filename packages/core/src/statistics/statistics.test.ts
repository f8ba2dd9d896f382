import type { LinkClickStats } from '@mailcast/domain';
import { GetBroadcast } from '../broadcasts/get-broadcast';
import { NotFoundError } from '../errors';
import { FixedClock, fakeRepositories } from '../test-support/fakes';
import {
  STATISTICS_COUNTERS,
  type BroadcastStatisticsReader,
  type RecipientCounts,
  type StatisticsCounter,
  type TimelineQuery,
} from './broadcast-statistics-reader';
import { GetBroadcastLinkStatistics } from './get-broadcast-link-statistics';
import { GetBroadcastStatistics } from './get-broadcast-statistics';
import { GetBroadcastTimeline } from './get-broadcast-timeline';

class FakeReader implements BroadcastStatisticsReader {
  readonly timelineQueries: TimelineQuery[] = [];
  constructor(
    private readonly recipients: Partial<Record<StatisticsCounter, number>>,
    private readonly linksClicked: number,
    private readonly rows: Array<{ kind: 'processed' | 'delivered' | 'opened' | 'clicked' | 'bounced'; bucket: Date; count: number }>,
    private readonly linkStats: LinkClickStats[],
  ) {}
  async counts(): Promise<RecipientCounts> {
    const recipients = Object.fromEntries(STATISTICS_COUNTERS.map((c) => [c, this.recipients[c] ?? 0])) as Record<StatisticsCounter, number>;
    return { recipients, linksClicked: this.linksClicked };
  }
  async timeline(_id: number, query: TimelineQuery) {
    this.timelineQueries.push(query);
    return this.rows;
  }
  async links() {
    return this.linkStats;
  }
}

const caller = { tokenId: 1, channelId: 1, permissions: ['broadcasts_read' as const] };

async function setUp(reader: FakeReader, beginSendAt: Date | null = new Date('2026-03-01T10:07:30Z')) {
  const repositories = fakeRepositories();
  const b = await repositories.broadcasts.create(
    {
      channelId: 1,
      name: 'n',
      subject: 's',
      preheader: null,
      body: 'b',
      htmlBody: null,
      includeUnsubscribeLink: true,
      replyTo: null,
      trackOpens: true,
      trackClicks: true,
      useAnyEmailServer: false,
      emailHeaders: [],
      tags: [],
      segmentIds: [],
      emailServerIds: [],
      scheduledSendAt: null,
      scheduledTimezone: null,
    },
    new Date(0),
  );
  Object.assign(b, { totalRecipients: 12, beginSendAt });
  return { id: b.id, getBroadcast: new GetBroadcast(repositories), repositories };
}

const link = (id: number, totalClicks: number, uniqueClicks: number): LinkClickStats => ({
  id,
  identifier: `l${id}`,
  url: `https://example.com/${id}`,
  totalClicks,
  uniqueClicks,
  humanClicks: 0,
  firstClickedAt: null,
  lastClickedAt: null,
});

describe('statistics use cases', () => {
  it('summary: sent = delivered recipients, failed = bounced or failed, rates from the domain', async () => {
    const reader = new FakeReader(
      {
        delivered: 7,
        undeliverable: 2,
        bounced: 1,
        failed: 1,
        opened: 5,
        clicked: 4,
        complained: 1,
        unsubscribed: 3,
        processed: 9,
        human_opened: 2,
        human_clicked: 1,
      },
      3,
      [],
      [],
    );
    const { id, getBroadcast, repositories } = await setUp(reader);
    const { summary, abTest } = await new GetBroadcastStatistics(getBroadcast, reader, repositories).execute(caller, { id });
    // docs/subject-tests.md: no test, no figures (and nothing read for them).
    expect(abTest).toBeNull();
    expect(summary).toEqual({
      delivery: { sent: 7, failed: 2, delivery_rate: 58.33 },
      engagement: {
        opens: { count: 5, rate: 71.43 },
        clicks: { count: 4, rate: 57.14 },
        unique_links_clicked: 3,
        human_opens: { count: 2, rate: 28.57 },
        human_clicks: { count: 1, rate: 14.29 },
      },
      issues: { bounces: { count: 1, rate: 14.29 }, complaints: { count: 1, rate: 14.29 }, unsubscribes: { count: 3, rate: 42.86 } },
    });
  });

  it("another channel's broadcast is not found", async () => {
    const reader = new FakeReader({}, 0, [], []);
    const { id, getBroadcast, repositories } = await setUp(reader);
    await expect(new GetBroadcastStatistics(getBroadcast, reader, repositories).execute({ ...caller, channelId: 2 }, { id })).rejects.toEqual(
      new NotFoundError('Broadcast not found'),
    );
  });

  it('timeline: asks the reader for the metrics’ event kinds over the window, places its rows', async () => {
    const reader = new FakeReader(
      {},
      0,
      [
        { kind: 'opened', bucket: new Date('2026-03-01T10:05:00Z'), count: 4 },
        { kind: 'clicked', bucket: new Date('2026-03-01T10:10:00Z'), count: 2 },
      ],
      [],
    );
    const { id, getBroadcast } = await setUp(reader);
    const timeline = await new GetBroadcastTimeline(getBroadcast, reader, new FixedClock(new Date('2030-01-01T00:00:00Z'))).execute(caller, {
      id,
      timeframe: '3h',
      metrics: 'Clicks,Opens',
    });
    expect(reader.timelineQueries).toEqual([
      { kinds: ['clicked', 'opened'], start: new Date('2026-03-01T10:05:00Z'), end: new Date('2026-03-01T13:05:00Z'), intervalMs: 300_000 },
    ]);
    expect(timeline).toMatchObject({ broadcastId: id, timeframe: '3h', interval: '5m' });
    expect(timeline.series.map((s) => [s.name, s.data['2026-03-01T10:05:00.000Z'], s.data['2026-03-01T10:10:00.000Z']])).toEqual([
      ['Clicks', 0, 2],
      ['Opens', 4, 0],
    ]);
  });

  it('timeline: unsent broadcast, window from the clock', async () => {
    const reader = new FakeReader({}, 0, [], []);
    const { id, getBroadcast } = await setUp(reader, null);
    const timeline = await new GetBroadcastTimeline(getBroadcast, reader, new FixedClock(new Date('2026-03-05T12:34:56Z'))).execute(caller, { id });
    expect(timeline.start).toEqual(new Date('2026-03-04T12:00:00Z'));
    expect(timeline.series).toHaveLength(5);
  });

  it('links: totals over every link, sorted and cut by the domain, click rate over sent', async () => {
    const reader = new FakeReader({ delivered: 8 }, 3, [], [link(1, 4, 2), link(2, 3, 3), link(3, 1, 1), link(4, 0, 0)]);
    const { id, getBroadcast } = await setUp(reader);
    const result = await new GetBroadcastLinkStatistics(getBroadcast, reader).execute(caller, { id, sort: 'unique', limit: '2' });
    expect(result.totalLinks).toBe(4);
    expect(result.totalClicks).toBe(8);
    expect(result.links.map((l) => [l.id, l.unique_clicks, l.click_rate])).toEqual([
      [2, 3, 37.5],
      [1, 2, 25],
    ]);
  });
});
