import { TIMELINE_METRIC_EVENTS, buildSeries, parseMetrics, parseTimeframe, timelineWindow, type Timeframe, type TimelineSeries } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { GetBroadcast } from '../broadcasts/get-broadcast';
import { Clock } from '../ports';
import { BroadcastStatisticsReader } from './broadcast-statistics-reader';

export interface BroadcastTimeline {
  broadcastId: number;
  timeframe: Timeframe;
  interval: string;
  start: Date;
  end: Date;
  series: TimelineSeries[];
}

/** Spec: Timeline. An unknown broadcast is a 404 before the query is judged (422). */
@injectable()
export class GetBroadcastTimeline {
  constructor(
    @inject(GetBroadcast) private readonly getBroadcast: GetBroadcast,
    @inject(BroadcastStatisticsReader) private readonly reader: BroadcastStatisticsReader,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, input: { id: number; timeframe?: string; metrics?: string }): Promise<BroadcastTimeline> {
    const broadcast = await this.getBroadcast.execute(principal, { id: input.id });
    const timeframe = parseTimeframe(input.timeframe);
    const metrics = parseMetrics(input.metrics);
    const window = timelineWindow({ timeframe, beginSendAt: broadcast.beginSendAt, now: this.clock.now() });
    const rows = await this.reader.timeline(broadcast.id, {
      kinds: metrics.map((m) => TIMELINE_METRIC_EVENTS[m]),
      start: window.start,
      end: window.end,
      intervalMs: window.intervalMs,
    });
    const byKind = new Map(metrics.map((m) => [TIMELINE_METRIC_EVENTS[m] as string, m]));
    const counts = rows.flatMap((r) => {
      const metric = byKind.get(r.kind);
      return metric === undefined ? [] : [{ metric, bucket: r.bucket, count: r.count }];
    });
    return {
      broadcastId: broadcast.id,
      timeframe,
      interval: window.interval,
      start: window.start,
      end: window.end,
      series: buildSeries(metrics, window, counts),
    };
  }
}
