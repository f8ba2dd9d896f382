import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, type OptInForm, type Schemas } from '../api';
import { Empty, ErrorMessage, Feedback, Field, formatNumber, Loading } from '../components';
import { useAction, useResource } from '../hooks';
import { useCan } from '../session';

export const WIDGET_LABELS: Record<OptInForm['widget_type'], string> = {
  inline_embed: 'Inline embed',
  popup_modal: 'Pop-up modal',
  slide_in_panel: 'Slide-in panel',
  floating_button: 'Floating button',
  sticky_bar: 'Sticky bar',
  full_page: 'Full page',
};

/** The opt-in forms (main forms; variants are on their form's page) with their figures. */
export function Forms() {
  const can = useCan();
  const [page, setPage] = useState(1);
  const list = useResource(() => api<Schemas['OptInFormPage']>('GET', '/opt_in_forms', { query: { page } }), [page]);
  const forms = list.data?.opt_in_forms ?? [];
  const writable = can('opt_in_forms_write');
  return (
    <section>
      <h1>Forms</h1>
      {list.error && <ErrorMessage message={list.error} />}
      {list.loading && !list.data && <Loading />}
      {list.data && forms.length === 0 && (
        <Empty>
          No opt-in forms yet.{' '}
          {writable ? 'Create one below, then embed it on your site or share its page.' : 'Ask someone with the opt_in_forms_write permission to create one.'}
        </Empty>
      )}
      {forms.length > 0 && (
        <div class="table-wrap">
          <table class="forms">
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Widget</th>
                <th scope="col">State</th>
                <th scope="col">Views</th>
                <th scope="col">Submissions</th>
                <th scope="col">Conversion</th>
              </tr>
            </thead>
            <tbody>
              {forms.map((f) => (
                <tr key={f.id} data-form={f.id}>
                  <td>
                    <Link href={`/forms/${f.id}`}>{f.label}</Link>
                  </td>
                  <td>{WIDGET_LABELS[f.widget_type]}</td>
                  <td>
                    <span class={`badge badge-${f.enabled ? 'on' : 'off'}`}>{f.enabled ? 'enabled' : 'disabled'}</span>
                  </td>
                  <td>{formatNumber(f.analytics.views_count)}</td>
                  <td>{formatNumber(f.analytics.submissions_count)}</td>
                  <td>{f.analytics.conversion_rate}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && list.data.pagination.pages > 1 && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={list.data.pagination.prev === null} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {list.data.pagination.pages}
          </span>
          <button type="button" disabled={list.data.pagination.next === null} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
      {writable && <NewForm />}
    </section>
  );
}

/** Creates a form (the API gives it an email field, a button and a thank-you text) and opens its builder. */
function NewForm() {
  const [label, setLabel] = useState('');
  const [widget, setWidget] = useState<OptInForm['widget_type']>('inline_embed');
  const [, navigate] = useLocation();
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let created: OptInForm | undefined;
    if (await action.run(async () => (created = await api<OptInForm>('POST', '/opt_in_forms', { body: { opt_in_form: { label, widget_type: widget } } })))) {
      navigate(`/forms/${created!.id}`);
    }
  }
  return (
    <form class="panel stack" onSubmit={submit}>
      <h2>New form</h2>
      <div class="row">
        <Field label="Label">
          <input name="new_label" required value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </Field>
        <Field label="Widget type">
          <select name="new_widget_type" value={widget} onChange={(e) => setWidget(e.currentTarget.value as OptInForm['widget_type'])}>
            {Object.entries(WIDGET_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Create form
        </button>
      </div>
    </form>
  );
}
