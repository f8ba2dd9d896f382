import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { api, type SequenceStep } from '../api';
import { ErrorMessage, Feedback, Field, formatNumber } from '../components';
import { useAction } from '../hooks';
import { ACTIONS, ActionFields, bodyOf, type Action, type Choice, CONDITIONS, duration, fieldsOf, useStepFields } from './step-form';

/** The tree from the depth-first list: each step's children, in list order. */
export function childrenOf(steps: SequenceStep[]): Map<number | null, SequenceStep[]> {
  const children = new Map<number | null, SequenceStep[]>();
  for (const s of steps) children.set(s.parent_id, [...(children.get(s.parent_id) ?? []), s]);
  return children;
}

/** One line saying what a step does. */
export function summary(step: SequenceStep, sequences: Choice[] = []): string {
  switch (step.action) {
    case 'entry_point':
      return 'Start: subscribers enter here';
    case 'condition_branch':
      return step.branch ? 'If true' : 'If false';
    case 'send_email':
      return `Send email “${step.subject ?? (step.template_id ? `template ${step.template_id}` : '')}”`;
    case 'delay':
      return `Wait ${duration(step.delay ?? 0)}`;
    case 'delay_until_time':
      return `Wait until ${step.time ?? '?'} (${step.timezone ?? 'UTC'})`;
    case 'condition':
      return `Condition: has ${CONDITIONS[step.condition_setting ?? 'any_email_opened']}${step.delay ? `, checked after ${duration(step.delay)}` : ''}?`;
    case 'move_to_sequence': {
      const target = sequences.find((s) => s.value === step.target_sequence_id);
      return `Move to sequence “${target?.label ?? `#${step.target_sequence_id}`}”`;
    }
    case 'add_tag_to_subscriber':
      return `Add tags: ${(step.tags ?? []).join(', ')}`;
    case 'remove_tag_from_subscriber':
      return `Remove tags: ${(step.tags ?? []).join(', ')}`;
    case 'deactivate_subscriber':
      return 'Deactivate the subscriber';
    case 'make_http_request':
      return `${step.http_method ?? 'POST'} ${step.url ?? ''}`;
  }
}

export const stepName = (step: SequenceStep, sequences: Choice[] = []) =>
  step.label ? `${step.label} (${summary(step, sequences)})` : summary(step, sequences);

/** Every step under `id` (itself excluded). */
function descendants(kids: Map<number | null, SequenceStep[]>, id: number): Set<number> {
  const found = new Set<number>();
  const walk = (at: number) => {
    for (const c of kids.get(at) ?? []) {
      found.add(c.id);
      walk(c.id);
    }
  };
  walk(id);
  return found;
}

/** How deep a step sits: one level per condition branch above it (a line of steps stays level). */
function branchDepth(steps: SequenceStep[], step: SequenceStep): number {
  const byId = new Map(steps.map((s) => [s.id, s]));
  let depth = 0;
  for (let at = step.parent_id === null ? undefined : byId.get(step.parent_id); at; at = at.parent_id === null ? undefined : byId.get(at.parent_id)) {
    if (at.action === 'condition_branch') depth++;
  }
  return step.action === 'condition_branch' ? depth + 1 : depth;
}

/** A place a step can go under (`parent_id` / `under_id`): any step but a condition, indented by branch. */
export function placeChoices(steps: SequenceStep[], sequences: Choice[], exclude: Set<number> = new Set()): Choice[] {
  return steps
    .filter((s) => s.action !== 'condition' && !exclude.has(s.id))
    .map((s) => ({ value: s.id, label: `${'— '.repeat(branchDepth(steps, s))}${stepName(s, sequences)}` }));
}

interface TreeProps {
  sequenceId: number;
  steps: SequenceStep[];
  sequences: Choice[];
  templates: Choice[] | undefined;
  writable: boolean;
  onChanged(): void;
}

/**
 * The step tree, depth-first as the API lists it: a line of steps is one list, and a condition
 * holds a nested list per branch (true first), so the indentation is the branching.
 */
export function StepTree(props: TreeProps) {
  const children = childrenOf(props.steps);
  const root = children.get(null)?.[0];
  if (!root) return <ErrorMessage message="This sequence has no entry point." />;
  return (
    <ol class="tree" aria-label="Step tree">
      <Line {...props} kids={children} first={root} />
    </ol>
  );
}

/** A step and the steps after it on the same line. */
function Line(props: TreeProps & { kids: Map<number | null, SequenceStep[]>; first: SequenceStep }) {
  const items: VNode[] = [];
  for (let at: SequenceStep | undefined = props.first; at;) {
    const kids: SequenceStep[] = props.kids.get(at.id) ?? [];
    items.push(<StepItem key={at.id} {...props} step={at} branches={at.action === 'condition' ? kids : []} />);
    at = at.action === 'condition' ? undefined : kids[0];
  }
  return <>{items}</>;
}

function StepItem(props: TreeProps & { kids: Map<number | null, SequenceStep[]>; step: SequenceStep; branches: SequenceStep[] }) {
  const { step, sequences, writable } = props;
  const [mode, setMode] = useState<'view' | 'edit' | 'move'>('view');
  const action = useAction();
  const fixed = step.action === 'entry_point' || step.action === 'condition_branch';
  const name = stepName(step, sequences);

  async function remove() {
    const also = step.action === 'condition' ? ' Its true branch stays in its place; its false branch and every step under it are deleted.' : '';
    if (!window.confirm(`Delete the step “${name}”?${also} Subscribers waiting on it continue at the step now in its place.`)) return;
    if (await action.run(() => api('DELETE', `/sequences/${props.sequenceId}/steps/${step.id}`))) props.onChanged();
  }

  return (
    <li
      class={`step step-${step.action}`}
      data-step={step.id}
      data-action={step.action}
      {...(step.action === 'condition_branch' ? { 'data-branch': String(step.branch) } : {})}
    >
      <div class="step-row">
        <span class="step-text">
          <span class={fixed ? 'step-fixed' : 'step-name'}>{name}</span>
          {step.statistics && <StepFigures figures={step.statistics} />}
        </span>
        {writable && !fixed && mode === 'view' && (
          <span class="step-actions">
            <button type="button" class="link" data-do="edit" aria-label={`Edit ${name}`} onClick={() => setMode('edit')}>
              Edit
            </button>
            <button type="button" class="link" data-do="move" aria-label={`Move ${name}`} onClick={() => setMode('move')}>
              Move
            </button>
            <button type="button" class="link danger-text" data-do="delete" aria-label={`Delete ${name}`} disabled={action.busy} onClick={remove}>
              Delete
            </button>
          </span>
        )}
      </div>
      <Feedback action={action} />
      {mode === 'edit' && <EditStep {...props} onDone={() => setMode('view')} />}
      {mode === 'move' && <MoveStep {...props} onDone={() => setMode('view')} />}
      {step.action === 'condition_branch' && (props.kids.get(step.id)?.length ?? 0) === 0 && (
        <p class="muted small branch-empty">No step on this branch: the path ends here.</p>
      )}
      {step.action === 'condition_branch' && props.kids.get(step.id)?.[0] && (
        <ol class="line">
          <Line {...props} first={props.kids.get(step.id)![0]!} />
        </ol>
      )}
      {props.branches.length > 0 && (
        <ol class="branches">
          {props.branches.map((b) => (
            <StepItem key={b.id} {...props} step={b} branches={[]} />
          ))}
        </ol>
      )}
    </li>
  );
}

/** A send_email step's figures: unique subscribers per kind (the step's `statistics`). */
function StepFigures({ figures }: { figures: NonNullable<SequenceStep['statistics']> }) {
  const items = [
    ['Sent', figures.sent],
    ['Delivered', figures.delivered],
    ['Opens', figures.opens],
    ['Clicks', figures.clicks],
    ['Bounces', figures.bounces],
    ['Unsubscribes', figures.unsubscribes],
  ] as const;
  return (
    <dl class="step-figures">
      {items.map(([label, value]) => (
        <div key={label} data-figure={label}>
          <dt>{label}</dt>
          <dd>{formatNumber(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function EditStep(props: TreeProps & { step: SequenceStep; onDone(): void }) {
  const { step } = props;
  const [fields, setFields] = useStepFields(step);
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const body = bodyOf(step.action as Action, fields);
    if (await action.run(() => api('PATCH', `/sequences/${props.sequenceId}/steps/${step.id}`, { body: { step: body } }))) {
      props.onDone();
      props.onChanged();
    }
  }
  return (
    <form class="panel stack step-form edit-step" onSubmit={submit} aria-label={`Edit ${stepName(step, props.sequences)}`}>
      <p class="muted small">
        {ACTIONS[step.action as Action]}: the action stays (add a new step for another). An edit reaches those who arrive at the step later.
      </p>
      <Field label="Label (optional)">
        <input name="label" value={fields.label} onInput={(e) => setFields({ ...fields, label: e.currentTarget.value })} />
      </Field>
      <ActionFields
        action={step.action as Action}
        fields={fields}
        onChange={setFields}
        templates={props.templates}
        sequences={props.sequences.filter((s) => s.value !== props.sequenceId)}
      />
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Save step
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function MoveStep(props: TreeProps & { kids: Map<number | null, SequenceStep[]>; step: SequenceStep; onDone(): void }) {
  const { step } = props;
  // Not under itself, anything under it, or where it already is (the API refuses each).
  const exclude = new Set([step.id, ...descendants(props.kids, step.id), ...(step.parent_id === null ? [] : [step.parent_id])]);
  const choices = placeChoices(props.steps, props.sequences, exclude);
  const [under, setUnder] = useState(choices[0] ? String(choices[0].value) : '');
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    if (await action.run(() => api('POST', `/sequences/${props.sequenceId}/steps/${step.id}/move`, { body: { under_id: Number(under) } }))) {
      props.onDone();
      props.onChanged();
    }
  }
  return (
    <form class="panel stack move-step" onSubmit={submit} aria-label={`Move ${stepName(step, props.sequences)}`}>
      {choices.length === 0 && <p class="muted small">Nowhere to move it: a step goes after a step above it or on another branch, never after one below it.</p>}
      <Field
        label="Move it after"
        hint={`${step.action === 'condition' ? 'The condition moves with both branches.' : 'It moves alone: the step after it takes its place.'} Steps below it are not offered: move those up instead.`}
      >
        <select name="under_id" value={under} onChange={(e) => setUnder(e.currentTarget.value)}>
          {choices.map((c) => (
            <option key={c.value} value={String(c.value)}>
              {c.label}
            </option>
          ))}
        </select>
      </Field>
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || under === ''}>
          Move step
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Adds a step after a chosen one (default: the end of the main line, as the API places it). */
export function AddStep(props: TreeProps) {
  const [kind, setKind] = useState<Action>('send_email');
  const [parent, setParent] = useState('');
  const [fields, setFields] = useStepFields();
  const action = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const body = { action: kind, ...(parent === '' ? {} : { parent_id: Number(parent) }), ...bodyOf(kind, fields) };
    if (await action.run(() => api('POST', `/sequences/${props.sequenceId}/steps`, { body: { step: body } }), `Added: ${ACTIONS[kind]}.`)) {
      setFields(fieldsOf());
      setParent('');
      props.onChanged();
    }
  }
  return (
    <form class="panel stack step-form add-step" onSubmit={submit} aria-labelledby="add-step-title">
      <h3 id="add-step-title">Add a step</h3>
      <div class="row">
        <Field label="Action">
          <select name="action" value={kind} onChange={(e) => setKind(e.currentTarget.value as Action)}>
            {Object.entries(ACTIONS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Place it after" hint="The step that was there comes after the new one (under a new condition: on its true branch).">
          <select name="parent_id" value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
            <option value="">The end of the main line</option>
            {placeChoices(props.steps, props.sequences).map((c) => (
              <option key={c.value} value={String(c.value)}>
                {c.label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Label (optional)">
        <input name="label" value={fields.label} onInput={(e) => setFields({ ...fields, label: e.currentTarget.value })} />
      </Field>
      <ActionFields
        action={kind}
        fields={fields}
        onChange={setFields}
        templates={props.templates}
        sequences={props.sequences.filter((s) => s.value !== props.sequenceId)}
      />
      <Feedback action={action} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          Add step
        </button>
      </div>
    </form>
  );
}
