import { Field, formatTime } from '../components';
import type { Schemas } from '../api';

/** A subject test's figures on the statistics page (docs/subject-tests.md): one row per subject, and the winner. */
export function SubjectTestTable({ test }: { test: Schemas['SubjectTestStatistics'] }) {
  const metric = test.metric === 'human_opens' ? 'human opens' : 'human clicks';
  return (
    <>
      <h2>Subject test</h2>
      <p class="muted small" data-subject-test-outcome>
        {test.winner && test.decided_at
          ? `Winner: “${test.winner.subject}”, decided ${formatTime(test.decided_at)} on ${metric}.`
          : `The winner is picked on ${metric} once the wait is over; the rest of the list then gets it.`}
      </p>
      <div class="table-wrap">
        <table class="subject-test">
          <caption class="visually-hidden">Each subject's part of the sample</caption>
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">Sent</th>
              <th scope="col">Human opens</th>
              <th scope="col">Human clicks</th>
            </tr>
          </thead>
          <tbody>
            {test.variants.map((v, i) => (
              <tr key={i} data-variant={i}>
                <td>
                  {v.subject}
                  {test.winner?.index === i && <strong> (winner)</strong>}
                </td>
                <td>{v.sent}</td>
                <td>{v.human_opens}</td>
                <td>{v.human_clicks}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

type SubjectTest = Schemas['SubjectTest'];
const NEW_TEST: SubjectTest = { subjects: ['', ''], sample_percent: 20, metric: 'human_opens', wait_minutes: 240 };

/** The broadcast editor's subject test (docs/subject-tests.md): off, or 2 to 4 subjects, the sample, the metric and the wait. */
export function SubjectTestFields({ value, onChange }: { value: SubjectTest | null; onChange: (test: SubjectTest | null) => void }) {
  const set = (patch: Partial<SubjectTest>) => onChange({ ...value!, ...patch });
  const number = (e: Event) => Number((e.currentTarget as HTMLInputElement).value);
  return (
    <fieldset class="stack" data-subject-test>
      <legend>Subject test</legend>
      <label>
        <input type="checkbox" name="ab_test" checked={value !== null} onChange={(e) => onChange(e.currentTarget.checked ? NEW_TEST : null)} /> Test 2 to 4
        subjects on a sample first, then send the winner to the rest
      </label>
      {value && (
        <>
          {value.subjects.map((subject, i) => (
            <div class="inline" key={i}>
              <Field label={`Subject ${i + 1}`}>
                <input
                  name={`ab_test_subject_${i}`}
                  value={subject}
                  required
                  onInput={(e) => set({ subjects: value.subjects.map((s, j) => (j === i ? e.currentTarget.value : s)) })}
                />
              </Field>
              {value.subjects.length > 2 && (
                <button type="button" onClick={() => set({ subjects: value.subjects.filter((_, j) => j !== i) })}>
                  Remove subject {i + 1}
                </button>
              )}
            </div>
          ))}
          {value.subjects.length < 4 && (
            <button type="button" onClick={() => set({ subjects: [...value.subjects, ''] })}>
              Add a subject
            </button>
          )}
          <Field label="Sample (%)" hint="5 to 50: the share of the list, drawn at random, split equally between the subjects.">
            <input
              name="ab_test_sample_percent"
              type="number"
              min={5}
              max={50}
              step={1}
              value={value.sample_percent}
              onInput={(e) => set({ sample_percent: number(e) })}
            />
          </Field>
          <Field label="Winner by">
            <select name="ab_test_metric" value={value.metric} onChange={(e) => set({ metric: e.currentTarget.value as SubjectTest['metric'] })}>
              <option value="human_opens">Human opens</option>
              <option value="human_clicks">Human clicks</option>
            </select>
          </Field>
          <Field label="Wait (minutes)" hint="1 to 1440, from the start of sending to the decision. Ties go to the first subject.">
            <input
              name="ab_test_wait_minutes"
              type="number"
              min={1}
              max={1440}
              step={1}
              value={value.wait_minutes}
              onInput={(e) => set({ wait_minutes: number(e) })}
            />
          </Field>
        </>
      )}
    </fieldset>
  );
}
