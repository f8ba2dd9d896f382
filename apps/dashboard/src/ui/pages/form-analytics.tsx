import { useEffect, useRef, useState } from 'preact/hooks';
import { countTicks } from '../chart';
import uPlot from '../uplot';
import { api, type OptInFormAnalytics } from '../api';
import { ErrorMessage, Field, formatNumber, Loading } from '../components';
import { useResource } from '../hooks';

const SERIES = [
  ['views', 'Views', '#64748b'],
  ['unique_views', 'Unique views', '#2563eb'],
  ['submissions', 'Submissions', '#16a34a'],
] as const;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Daily views, unique views and submissions as a uPlot chart (the totals and table carry the same numbers). */
function DailyChart({ analytics }: { analytics: OptInFormAnalytics }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.dataset.drawn = 'false';
    const width = () => Math.max(280, el.clientWidth);
    const xs = analytics.daily.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: width(),
        height: 260,
        scales: { x: { time: true } },
        series: [{}, ...SERIES.map(([, label, stroke]) => ({ label, stroke, width: 2, points: { show: true, size: 5 } }))],
        axes: [{}, { label: 'Per day', values: countTicks }],
        hooks: { draw: [() => (el.dataset.drawn = 'true')] },
      },
      [xs, ...SERIES.map(([key]) => analytics.daily.map((d) => d[key]))],
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [analytics]);
  return <div class="chart form-chart" ref={box} role="img" aria-label="Daily views, unique views and submissions" />;
}

/** A form's analytics over a chosen date range (default the last 30 days, as the API's default). */
export function FormAnalytics({ formId }: { formId: number }) {
  const [range, setRange] = useState({ start: day(-29), end: day(0) });
  const data = useResource(
    () => api<OptInFormAnalytics>('GET', `/opt_in_forms/${formId}/analytics`, { query: { start_date: range.start, end_date: range.end } }),
    [formId, range],
  );
  const a = data.data;
  return (
    <section class="panel stack analytics">
      <h2>Analytics</h2>
      <div class="row">
        <Field label="From">
          <input type="date" name="start_date" value={range.start} onChange={(e) => setRange({ ...range, start: e.currentTarget.value })} />
        </Field>
        <Field label="To">
          <input type="date" name="end_date" value={range.end} onChange={(e) => setRange({ ...range, end: e.currentTarget.value })} />
        </Field>
      </div>
      {data.error && <ErrorMessage message={data.error} />}
      {data.loading && !a && <Loading />}
      {a && (
        <>
          <div class="figures totals">
            <div class="figure" data-total="views">
              <span>Views</span>
              <span class="figure-value">{formatNumber(a.totals.views)}</span>
            </div>
            <div class="figure" data-total="unique_views">
              <span>Unique views</span>
              <span class="figure-value">{formatNumber(a.totals.unique_views)}</span>
            </div>
            <div class="figure" data-total="submissions">
              <span>Submissions</span>
              <span class="figure-value">{formatNumber(a.totals.submissions)}</span>
            </div>
            <div class="figure" data-total="conversion_rate">
              <span>Conversion</span>
              <span class="figure-value">{a.totals.conversion_rate}%</span>
            </div>
          </div>
          <DailyChart analytics={a} />
          {a.variants.length > 0 && (
            <div class="table-wrap">
              <table class="variant-figures">
                <caption>Per variant</caption>
                <thead>
                  <tr>
                    <th scope="col">Form</th>
                    <th scope="col">Weight</th>
                    <th scope="col">Views</th>
                    <th scope="col">Unique views</th>
                    <th scope="col">Submissions</th>
                    <th scope="col">Conversion</th>
                  </tr>
                </thead>
                <tbody>
                  {a.variants.map((v) => (
                    <tr key={v.form_id}>
                      <td>{v.variant_name}</td>
                      <td>{v.variant_weight}</td>
                      <td>{formatNumber(v.views)}</td>
                      <td>{formatNumber(v.unique_views)}</td>
                      <td>{formatNumber(v.submissions)}</td>
                      <td>{v.conversion_rate}%</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
