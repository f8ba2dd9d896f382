import { useEffect, useRef } from 'preact/hooks';
import uPlot from './uplot';
import type { Schemas } from './api';
import { formatNumber } from './locale';

type Timeline = Schemas['Timeline'];

const COLORS: Record<string, string> = {
  Processed: '#64748b',
  Delivered: '#2563eb',
  Opens: '#16a34a',
  Clicks: '#d97706',
  Bounces: '#dc2626',
};

/** The x axis (interval starts, in seconds) and one row per series, zero where a bucket is missing. */
export function chartData(timeline: Timeline): uPlot.AlignedData {
  const keys = new Set<string>();
  for (const s of timeline.series) for (const key of Object.keys(s.data)) keys.add(key);
  const xs = [...keys].map((k) => [k, Date.parse(k) / 1000] as const).sort((a, b) => a[1] - b[1]);
  return [xs.map(([, x]) => x), ...timeline.series.map((s) => xs.map(([k]) => s.data[k] ?? 0))];
}

/** The y axis' tick labels, formatted as every count in the app is. */
export const countTicks = (_u: uPlot, splits: number[]): string[] => splits.map((v) => (v == null ? '' : formatNumber(v)));

/**
 * The timeline as a uPlot line chart (canvas; the table beside it carries the same numbers for
 * keyboard and screen-reader users). Marks `timeline-drawn` when the first draw completes.
 */
export function TimelineChart({ timeline }: { timeline: Timeline }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.dataset.drawn = 'false';
    const width = () => Math.max(280, el.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 280,
        scales: { x: { time: true } },
        series: [{}, ...timeline.series.map((s) => ({ label: s.name, stroke: COLORS[s.name] ?? '#111', width: 2, points: { show: true, size: 5 } }))],
        // The counts in the app's locale (docs/dashboard.md, "Locale"); uPlot draws the dates itself.
        axes: [{}, { label: 'Recipients', values: countTicks }],
        hooks: {
          draw: [
            () => {
              if (el.dataset.drawn !== 'true') performance.mark('timeline-drawn');
              el.dataset.drawn = 'true';
            },
          ],
        },
      },
      chartData(timeline),
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 280 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [timeline]);
  return <div class="chart" ref={box} role="img" aria-label={`Timeline per ${timeline.interval}`} />;
}
