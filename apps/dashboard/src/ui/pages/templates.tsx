import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, type Schemas } from '../api';
import { Empty, ErrorMessage, formatTime, Loading, Pager } from '../components';
import { useResource } from '../hooks';
import { useCan } from '../session';

const LIMIT = 25;

/** The channel's templates, one page at a time, newest first (docs/dashboard.md, "Templates"). */
export function Templates() {
  const can = useCan();
  const [offset, setOffset] = useState(0);
  const list = useResource(() => api<Schemas['TemplateList']>('GET', '/templates', { query: { limit: LIMIT, offset } }), [offset]);
  const templates = list.data?.data ?? [];

  return (
    <section>
      <div class="title-row">
        <h1>Templates</h1>
        {can('templates_write') && (
          <Link href="/templates/new" class="button primary">
            New template
          </Link>
        )}
      </div>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && templates.length === 0 && offset === 0 && (
        <Empty>
          No templates yet.{' '}
          {can('templates_write')
            ? 'Create one with New template: broadcasts and transactionals can start from it, and double opt-in sends the default confirmation template.'
            : 'Ask someone with the templates_write permission to create one.'}
        </Empty>
      )}
      {templates.length > 0 && (
        <div class="table-wrap">
          <table class="templates">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Purpose</th>
                <th scope="col">Default confirmation</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {templates.map((t) => (
                <tr key={t.id} data-template={t.id}>
                  <td>
                    <Link href={`/templates/${t.id}`}>{t.label}</Link>
                    {t.subject && <div class="muted small">{t.subject}</div>}
                  </td>
                  <td>{t.template_purpose}</td>
                  <td>{t.default_confirmation ? 'yes' : 'no'}</td>
                  <td class="small">{formatTime(t.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager offset={offset} limit={LIMIT} count={templates.length} total={list.data?.total} onChange={setOffset} />
    </section>
  );
}
