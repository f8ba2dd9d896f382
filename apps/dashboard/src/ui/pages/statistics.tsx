import { useState } from 'preact/hooks';
import { Link, useParams } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { TimelineChart } from '../chart';
import { Empty, ErrorMessage, formatTime, Loading, StatusBadge } from '../components';
import { useResource } from '../hooks';
import { MOVING, POLL_MS } from './broadcasts';
import { SubjectTestTable } from './subject-test';

type Timeframe = Schemas['Timeline']['timeframe'];
/** The spec's timeframes, in order; `satisfies` keeps the list equal to the API's enumeration. */
const TIMEFRAMES = Object.keys({
  '60m': 1,
  '120m': 1,
  '3h': 1,
  '6h': 1,
  '12h': 1,
  '18h': 1,
  '24h': 1,
  '48h': 1,
  '72h': 1,
  '7d': 1,
  '14d': 1,
} satisfies Record<Timeframe, 1>) as Timeframe[];
const METRICS = 'Processed,Delivered,Opens,Clicks';

function Figure({ label, value, rate }: { label: string; value: number; rate?: number }) {
  return (
    <div class="figure" data-figure={label}>
      <span class="figure-value">{value}</span>
      <span class="figure-label">{label}</span>
      {rate !== undefined && <span class="muted small">{rate}%</span>}
    </div>
  );
}

export function Statistics() {
  const id = Number(useParams<{ id: string }>().id);
  const [timeframe, setTimeframe] = useState<Timeframe>('24h');
  const [sort, setSort] = useState<'total' | 'unique'>('total');
  const [order, setOrder] = useState<'desc' | 'asc'>('desc');
  const live = (s: Schemas['StatisticsSummary']) => (MOVING.has(s.status) ? POLL_MS * 3 : 0);
  const summary = useResource(() => api<Schemas['StatisticsSummary']>('GET', `/broadcasts/${id}/statistics`), [id], live);
  const timeline = useResource(
    () => api<Schemas['Timeline']>('GET', `/broadcasts/${id}/statistics/timeline`, { query: { timeframe, metrics: METRICS } }),
    [id, timeframe],
  );
  const links = useResource(() => api<Schemas['LinkStatistics']>('GET', `/broadcasts/${id}/statistics/links`, { query: { sort, order } }), [id, sort, order]);

  function sortBy(column: 'total' | 'unique') {
    if (column === sort) setOrder(order === 'desc' ? 'asc' : 'desc');
    else {
      setSort(column);
      setOrder('desc');
    }
  }
  const ariaSort = (column: 'total' | 'unique') => (column === sort ? (order === 'desc' ? 'descending' : 'ascending') : 'none');
  const s = summary.data;

  return (
    <section>
      <p>
        <Link href={`/broadcasts/${id}`}>← Broadcast</Link>
      </p>
      {summary.error && <ErrorMessage message={summary.error} />}
      {!s && !summary.error && <Loading />}
      {s && (
        <>
          <div class="title-row">
            <h1>Statistics: {s.broadcast_name || s.broadcast_subject}</h1>
            <StatusBadge status={s.status} />
          </div>
          <p class="muted small">
            Began {formatTime(s.begin_send_at)} · finished {formatTime(s.sent_at)}
          </p>
          <div class="figures">
            <Figure label="Recipients" value={s.total_recipients} />
            <Figure label="Sent" value={s.delivery.sent} rate={s.delivery.delivery_rate} />
            <Figure label="Failed" value={s.delivery.failed} />
            <Figure label="Opens" value={s.engagement.opens.count} rate={s.engagement.opens.rate} />
            <Figure label="Clicks" value={s.engagement.clicks.count} rate={s.engagement.clicks.rate} />
            {/* Beside the spec's counts, those left once machine opens and clicks are set aside (docs/engagement.md). */}
            <Figure label="Human opens" value={s.engagement.human_opens.count} rate={s.engagement.human_opens.rate} />
            <Figure label="Human clicks" value={s.engagement.human_clicks.count} rate={s.engagement.human_clicks.rate} />
            <Figure label="Bounces" value={s.issues.bounces.count} rate={s.issues.bounces.rate} />
            <Figure label="Unsubscribes" value={s.issues.unsubscribes.count} rate={s.issues.unsubscribes.rate} />
            <Figure label="Complaints" value={s.issues.complaints.count} rate={s.issues.complaints.rate} />
          </div>
          {s.ab_test && <SubjectTestTable test={s.ab_test} />}
        </>
      )}
      <div class="title-row">
        <h2>Timeline</h2>
        <label class="inline">
          Timeframe{' '}
          <select name="timeframe" value={timeframe} onChange={(e) => setTimeframe(e.currentTarget.value as Timeframe)}>
            {TIMEFRAMES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </div>
      {timeline.error && <ErrorMessage message={timeline.error} />}
      {timeline.data && (
        <>
          <TimelineChart timeline={timeline.data} />
          <table class="totals" aria-label="Timeline totals">
            <tbody>
              <tr>
                {timeline.data.series.map((series) => (
                  <td key={series.name} data-series={series.name}>
                    {series.name}: <strong>{Object.values(series.data).reduce((a, b) => a + b, 0)}</strong>
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
          <p class="muted small">
            {timeline.data.timeframe} from {formatTime(timeline.data.start_time)}, one point per {timeline.data.interval}.
          </p>
        </>
      )}
      <h2>Links</h2>
      {links.error && <ErrorMessage message={links.error} />}
      {links.data && links.data.links.length === 0 && (
        <Empty>No link was clicked yet. Links in the HTML body are tracked when click tracking is on; clicks show here as they come.</Empty>
      )}
      {links.data && links.data.links.length > 0 && (
        <div class="table-wrap">
          <table class="links">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col" aria-sort={ariaSort('total')}>
                  <button type="button" class="sort" onClick={() => sortBy('total')}>
                    Total clicks {sort === 'total' ? (order === 'desc' ? '▼' : '▲') : ''}
                  </button>
                </th>
                <th scope="col" aria-sort={ariaSort('unique')}>
                  <button type="button" class="sort" onClick={() => sortBy('unique')}>
                    Unique clicks {sort === 'unique' ? (order === 'desc' ? '▼' : '▲') : ''}
                  </button>
                </th>
                <th scope="col">Human clicks</th>
                <th scope="col">Click rate</th>
              </tr>
            </thead>
            <tbody>
              {links.data.links.map((l) => (
                <tr key={l.id}>
                  <td class="url">{l.url}</td>
                  <td>{l.total_clicks}</td>
                  <td>{l.unique_clicks}</td>
                  <td>{l.human_clicks}</td>
                  <td>{l.click_rate}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
