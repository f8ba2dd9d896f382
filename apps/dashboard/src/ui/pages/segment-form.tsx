import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Schemas } from '../api';
import { ErrorMessage, Field, formatNumber } from '../components';
import { errorMessage } from '../hooks';
import { FIELDS, isIncomplete, isWholeDay, kindOf, newRow, OPERATORS, takesValue, toApiRule, withField, type ApiRule, type RuleRow } from '../segment-rules';
import { useCan } from '../session';

export interface SegmentInput {
  name: string;
  description: string;
  match: 'all' | 'any';
  rows: RuleRow[];
}

/** The body of a create or update: the rows in their order, so the API's `rules[i]` is row i. */
export const bodyOf = (input: SegmentInput) => ({
  segment: { name: input.name, description: input.description, match: input.match, rules: input.rows.map(toApiRule) },
});

/** How long the live count waits after the last change before asking (docs/dashboard.md, "Segments"). */
const COUNT_DEBOUNCE_MS = 400;

type Count = { state: 'waiting' } | { state: 'counting' } | { state: 'incomplete' } | { state: 'done'; count: number } | { state: 'failed'; message: string };

/** Field errors as the API keys them (`name`, `match`, `rules`, `rules[2]`). */
type FieldErrors = Readonly<Record<string, readonly string[]>>;

function FieldError({ errors, name, id }: { errors: FieldErrors; name: string; id?: string }) {
  const messages = errors[name];
  if (!messages || messages.length === 0) return null;
  return (
    <p class="error field-error" role="alert" id={id}>
      {messages.join(', ')}
    </p>
  );
}

/**
 * The live member count: the rules as they stand, counted by the API (POST /segments/count)
 * 400 ms after the last change; an answer to rules since changed is dropped. A half-filled row
 * is not sent (the count says so). Needs segments_read; without it the count is not shown.
 */
function useLiveCount(match: string, rows: RuleRow[], enabled: boolean, onErrors: (errors: FieldErrors) => void): Count {
  const [count, setCount] = useState<Count>({ state: 'waiting' });
  const asked = useRef(0);
  const rules = JSON.stringify(rows.map(toApiRule));
  const incomplete = rows.some(isIncomplete);
  const errorsRef = useRef(onErrors);
  errorsRef.current = onErrors;
  useEffect(() => {
    if (!enabled) return;
    const ask = ++asked.current;
    if (incomplete) {
      setCount({ state: 'incomplete' });
      return;
    }
    setCount({ state: 'waiting' });
    const timer = setTimeout(() => {
      setCount({ state: 'counting' });
      api<Schemas['SegmentCount']>('POST', '/segments/count', { body: { segment: { match, rules: JSON.parse(rules) as ApiRule[] } } })
        .then((answer) => {
          if (ask !== asked.current) return;
          setCount({ state: 'done', count: answer.subscribers_count });
          errorsRef.current({});
        })
        .catch((e: unknown) => {
          if (ask !== asked.current) return;
          setCount({ state: 'failed', message: errorMessage(e) });
          if (e instanceof ApiError) errorsRef.current(e.fields);
        });
    }, COUNT_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [match, rules, incomplete, enabled]);
  return count;
}

function CountLine({ count }: { count: Count }) {
  let text: string;
  if (count.state === 'done') text = `${formatNumber(count.count)} ${count.count === 1 ? 'subscriber matches' : 'subscribers match'} these rules now.`;
  else if (count.state === 'incomplete') text = 'Fill in every rule to see how many subscribers match.';
  else if (count.state === 'failed') text = `Not counted: ${count.message}`;
  else text = 'Counting…';
  return (
    <p class={`segment-count segment-count-${count.state}`} role="status" aria-live="polite">
      {text}
    </p>
  );
}

/** The broadcasts an engagement rule may name: the newest 100 (one call), `any`, and the one a saved rule names. */
function useBroadcastChoices(enabled: boolean): Array<{ id: number; label: string }> | undefined {
  const [choices, setChoices] = useState<Array<{ id: number; label: string }> | undefined>(undefined);
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    api<Schemas['BroadcastList']>('GET', '/broadcasts', { query: { limit: 100 } })
      .then((page) => current && setChoices(page.data.map((b) => ({ id: b.id, label: `${b.name ?? b.subject ?? 'Untitled'} (#${b.id})` }))))
      .catch(() => current && setChoices(undefined));
    return () => {
      current = false;
    };
  }, [enabled]);
  return choices;
}

function RuleEditor({
  row,
  index,
  errors,
  broadcasts,
  onChange,
  onRemove,
}: {
  row: RuleRow;
  index: number;
  errors: FieldErrors;
  broadcasts: Array<{ id: number; label: string }> | undefined;
  onChange(row: RuleRow): void;
  onRemove(): void;
}) {
  const kind = kindOf(row.field);
  const errorKey = `rules[${index}]`;
  const errorId = `segment-rule-error-${row.id}`;
  const invalid = errors[errorKey] !== undefined;
  const described = invalid ? { 'aria-invalid': true, 'aria-describedby': errorId } : {};
  const set = (changes: Partial<RuleRow>) => onChange({ ...row, ...changes });

  let value = null;
  if (kind === 'engagement') {
    const known = broadcasts?.some((b) => String(b.id) === row.broadcast) ?? false;
    value = (
      <>
        {broadcasts ? (
          <Field label="Broadcast">
            <select name="broadcast" value={row.broadcast} onChange={(e) => set({ broadcast: e.currentTarget.value })} {...described}>
              <option value="any">Any broadcast</option>
              {row.broadcast !== 'any' && !known && <option value={row.broadcast}>Broadcast #{row.broadcast}</option>}
              {broadcasts.map((b) => (
                <option key={b.id} value={String(b.id)}>
                  {b.label}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="Broadcast" hint="A broadcast id, or any.">
            <input name="broadcast" value={row.broadcast} onInput={(e) => set({ broadcast: e.currentTarget.value })} {...described} />
          </Field>
        )}
        <Field label="Within days" hint="Optional: only in the last N days.">
          <input
            name="within_days"
            type="number"
            min={1}
            inputMode="numeric"
            value={row.withinDays}
            onInput={(e) => set({ withinDays: e.currentTarget.value })}
            {...described}
          />
        </Field>
      </>
    );
  } else if (!takesValue(row.operator)) {
    value = null;
  } else if (kind === 'boolean' || (kind === 'custom' && row.valueType === 'boolean' && (row.operator === 'equals' || row.operator === 'not_equals'))) {
    value = (
      <Field label="Value">
        <select name="value" value={row.value === 'false' ? 'false' : 'true'} onChange={(e) => set({ value: e.currentTarget.value })} {...described}>
          <option value="true">{kind === 'boolean' ? 'active' : 'true'}</option>
          <option value="false">{kind === 'boolean' ? 'inactive' : 'false'}</option>
        </select>
      </Field>
    );
  } else if (kind === 'confirmation') {
    value = (
      <Field label="Value">
        <select name="value" value={row.value} onChange={(e) => set({ value: e.currentTarget.value })} {...described}>
          <option value="confirmed">confirmed</option>
          <option value="unconfirmed">unconfirmed</option>
        </select>
      </Field>
    );
  } else if (kind === 'date') {
    value = isWholeDay(row.value) ? (
      <Field label="Date" hint="The day starts at midnight UTC.">
        <input name="value" type="date" value={row.value} onInput={(e) => set({ value: e.currentTarget.value })} {...described} />
      </Field>
    ) : (
      <Field label="Date and time" hint="ISO 8601, as saved.">
        <input name="value" value={row.value} onInput={(e) => set({ value: e.currentTarget.value })} {...described} />
      </Field>
    );
  } else {
    const numeric = kind === 'custom' && (row.operator === 'gt' || row.operator === 'lt' || row.valueType === 'number');
    value = (
      <Field label={kind === 'tags' ? 'Tag' : 'Value'}>
        <input
          name="value"
          type={numeric ? 'number' : 'text'}
          step={numeric ? 'any' : undefined}
          value={row.value}
          onInput={(e) => set({ value: e.currentTarget.value })}
          {...described}
        />
      </Field>
    );
  }

  return (
    <fieldset class={`segment-rule${invalid ? ' segment-rule-invalid' : ''}`} data-rule={index}>
      <legend>Rule {index + 1}</legend>
      <div class="segment-rule-inputs">
        <Field label="Field">
          <select name="field" value={row.field} onChange={(e) => onChange(withField(row, e.currentTarget.value))}>
            {FIELDS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </Field>
        {kind === 'custom' && (
          <Field label="Key">
            <input name="key" value={row.key} placeholder="plan" onInput={(e) => set({ key: e.currentTarget.value })} {...described} />
          </Field>
        )}
        <Field label="Condition">
          <select name="operator" value={row.operator} onChange={(e) => set({ operator: e.currentTarget.value })}>
            {OPERATORS[kind].map(([op, label]) => (
              <option key={op} value={op}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        {kind === 'custom' && (row.operator === 'equals' || row.operator === 'not_equals') && (
          <Field label="Type">
            <select
              name="value_type"
              value={row.valueType}
              onChange={(e) =>
                set({ valueType: e.currentTarget.value as RuleRow['valueType'], value: e.currentTarget.value === 'boolean' ? 'true' : row.value })
              }
            >
              <option value="text">text</option>
              <option value="number">number</option>
              <option value="boolean">true or false</option>
            </select>
          </Field>
        )}
        {value}
        <button type="button" class="segment-rule-remove" onClick={onRemove}>
          Remove<span class="visually-hidden"> rule {index + 1}</span>
        </button>
      </div>
      <FieldError errors={errors} name={errorKey} id={errorId} />
    </fieldset>
  );
}

/**
 * The rule builder (docs/dashboard.md, "Segments"): name, description, match all/any and rows
 * of rules, with the live member count. It checks nothing itself: the API's 422 names the field
 * or `rules[i]`, shown beside it, and nothing is saved.
 */
export function SegmentForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: SegmentInput;
  submitLabel: string;
  onSubmit(input: SegmentInput): Promise<unknown>;
  onCancel?(): void;
}) {
  const can = useCan();
  const [input, setInput] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // The count's 422 speaks of the rules only: it replaces their errors and leaves the name's.
  const count = useLiveCount(input.match, input.rows, can('segments_read'), (fields) =>
    setErrors((shown) => ({ ...(shown.name ? { name: shown.name } : {}), ...(shown.description ? { description: shown.description } : {}), ...fields })),
  );
  const broadcasts = useBroadcastChoices(can('broadcasts_read') && input.rows.some((r) => kindOf(r.field) === 'engagement'));
  const focusRule = useRef<number | null>(null);
  const list = useRef<HTMLDivElement>(null);

  // After "Add rule" the new row's first input takes the focus, so the keyboard goes on from there.
  useEffect(() => {
    if (focusRule.current === null) return;
    list.current?.querySelector<HTMLSelectElement>(`[data-rule="${focusRule.current}"] select[name=field]`)?.focus();
    focusRule.current = null;
  }, [input.rows.length]);

  const setRow = (i: number, row: RuleRow) => setInput({ ...input, rows: input.rows.map((r, j) => (j === i ? row : r)) });
  function addRule() {
    focusRule.current = input.rows.length;
    setInput({ ...input, rows: [...input.rows, newRow()] });
  }
  function removeRule(i: number) {
    setInput({ ...input, rows: input.rows.filter((_, j) => j !== i) });
    // The rows after it move up: their errors no longer name them.
    setErrors({});
  }

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    setErrors({});
    try {
      await onSubmit(input);
    } catch (e) {
      const fields = e instanceof ApiError ? e.fields : {};
      setErrors(fields);
      // Errors not beside a field of this form (a plain `error`, or a key it has no place for) show at its foot.
      const placed = Object.keys(fields).every((k) => k === 'name' || k === 'description' || k === 'match' || k === 'rules' || /^rules\[\d+\]$/.test(k));
      if (Object.keys(fields).length === 0 || !placed) setFailure(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  const invalid = (name: string) => (errors[name] ? { 'aria-invalid': true, 'aria-describedby': `segment-error-${name}` } : {});
  return (
    <form class="stack segment-form" onSubmit={submit} noValidate>
      <Field label="Name">
        <input name="name" value={input.name} onInput={(e) => setInput({ ...input, name: e.currentTarget.value })} {...invalid('name')} />
      </Field>
      <FieldError errors={errors} name="name" id="segment-error-name" />
      <Field label="Description" hint="Optional.">
        <textarea name="description" rows={2} value={input.description} onInput={(e) => setInput({ ...input, description: e.currentTarget.value })} />
      </Field>
      <FieldError errors={errors} name="description" />
      <fieldset class="checks segment-match">
        <legend>Subscribers who match</legend>
        <label>
          <input type="radio" name="match" value="all" checked={input.match === 'all'} onChange={() => setInput({ ...input, match: 'all' })} /> all of the rules
        </label>
        <label>
          <input type="radio" name="match" value="any" checked={input.match === 'any'} onChange={() => setInput({ ...input, match: 'any' })} /> any of the rules
        </label>
      </fieldset>
      <FieldError errors={errors} name="match" />
      <div class="segment-rules" ref={list}>
        <h2>Rules</h2>
        {input.rows.length === 0 && <p class="muted">No rules: every subscriber of the channel.</p>}
        {input.rows.map((row, i) => (
          <RuleEditor
            key={row.id}
            row={row}
            index={i}
            errors={errors}
            broadcasts={broadcasts}
            onChange={(next) => setRow(i, next)}
            onRemove={() => removeRule(i)}
          />
        ))}
        <FieldError errors={errors} name="rules" />
        <button type="button" onClick={addRule}>
          Add rule
        </button>
      </div>
      {can('segments_read') && <CountLine count={count} />}
      {failure && <ErrorMessage message={failure} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
