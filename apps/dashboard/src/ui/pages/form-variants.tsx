import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { api, type OptInForm, type Schemas } from '../api';
import { ErrorMessage, Feedback, Field } from '../components';
import { useAction, useResource } from '../hooks';

/** Variants of a main form: each with its figures (from analytics) and a link to its own builder. */
export function Variants({ form, writable }: { form: OptInForm; writable: boolean }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [weight, setWeight] = useState('50');
  const action = useAction();
  const variants = useResource(
    () => api<Schemas['OptInFormAnalytics']>('GET', `/opt_in_forms/${form.id}/analytics`).then((a) => a.variants),
    [form.id, form.variants_count],
  );
  async function add(event: Event) {
    event.preventDefault();
    const body: Record<string, unknown> = { weight: Number(weight) };
    if (name.trim() !== '') body.name = name.trim();
    let created: OptInForm | undefined;
    if (await action.run(async () => (created = await api<OptInForm>('POST', `/opt_in_forms/${form.id}/variants`, { body }))))
      navigate(`/forms/${created!.id}`);
  }
  const rows = (variants.data ?? []).filter((v) => v.form_id !== form.id);
  return (
    <section class="panel stack variants">
      <h2>Variants</h2>
      {variants.error && <ErrorMessage message={variants.error} />}
      {rows.length === 0 ? (
        <p class="muted">No variants: every visitor sees this form.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Variant</th>
                <th scope="col">Weight</th>
                <th scope="col">Views</th>
                <th scope="col">Submissions</th>
                <th scope="col">Conversion</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((v) => (
                <tr key={v.form_id} data-variant={v.form_id}>
                  <td>
                    <Link href={`/forms/${v.form_id}`}>{v.variant_name}</Link>
                  </td>
                  <td>{v.variant_weight}</td>
                  <td>{v.views}</td>
                  <td>{v.submissions}</td>
                  <td>{v.conversion_rate}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writable && (
        <form class="row" onSubmit={add}>
          <Field label="Variant name" hint="Empty: Variant B, C…">
            <input name="variant_name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Weight (0–100)">
            <input name="variant_weight" type="number" min={0} max={100} value={weight} onInput={(e) => setWeight(e.currentTarget.value)} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Add variant
          </button>
        </form>
      )}
      <Feedback action={action} />
    </section>
  );
}
