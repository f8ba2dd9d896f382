import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, type Schemas, type Segment } from '../api';
import { Empty, ErrorMessage, formatNumber, formatTime, Loading, Pager } from '../components';
import { useResource } from '../hooks';
import { newRow } from '../segment-rules';
import { useCan } from '../session';
import { bodyOf, SegmentForm } from './segment-form';

const LIMIT = 25;

/**
 * The segments list (docs/dashboard.md, "Segments"): one page of segments, each with its rule
 * count. No member counts here: each is an evaluation over the whole channel, so the segment's
 * own page shows it (one count, not one per row).
 */
export function Segments() {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const list = useResource(() => api<Schemas['SegmentList']>('GET', '/segments.json', { query: { limit: LIMIT, offset } }), [offset]);
  const segments = list.data?.data ?? [];
  const writable = can('segments_write');

  return (
    <section>
      <div class="title-row">
        <h1>Segments</h1>
        {writable && (
          <Link href="/segments/new" class="button primary">
            New segment
          </Link>
        )}
      </div>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && segments.length === 0 && offset === 0 && (
        <Empty>
          No segments yet.{' '}
          {writable
            ? 'Create one with New segment: rules on tags, custom fields, dates or engagement pick the subscribers a broadcast goes to.'
            : 'Ask someone with the segments_write permission to create one.'}
        </Empty>
      )}
      {segments.length > 0 && (
        <div class="table-wrap">
          <table class="segments">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Description</th>
                <th scope="col">Matches</th>
                <th scope="col">Rules</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {segments.map((s) => (
                <tr key={s.id} data-segment={s.id}>
                  <td>
                    <Link href={`/segments/${s.id}`}>{s.name}</Link>
                  </td>
                  <td class="small">{s.description ?? '—'}</td>
                  <td>{s.rules.length === 0 ? 'everyone' : s.match === 'all' ? 'all rules' : 'any rule'}</td>
                  <td>{formatNumber(s.rules.length)}</td>
                  <td class="small">{formatTime(s.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={segments.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}

/** A new segment: the builder, saved with one POST; then the segment's page. */
export function NewSegment() {
  const [, navigate] = useLocation();
  return (
    <section>
      <p>
        <Link href="/segments">← Segments</Link>
      </p>
      <h1>New segment</h1>
      <SegmentForm
        initial={{ name: '', description: '', match: 'all', rows: [newRow()] }}
        submitLabel="Create segment"
        onSubmit={async (input) => {
          const created = await api<Segment>('POST', '/segments', { body: bodyOf(input) });
          navigate(`/segments/${created.id}`);
        }}
        onCancel={() => navigate('/segments')}
      />
    </section>
  );
}
