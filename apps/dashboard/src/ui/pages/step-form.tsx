import { useState } from 'preact/hooks';
import type { SequenceStep, SequenceStepInput } from '../api';
import { Field } from '../components';

/** The actions a user can add (the entry point and condition branches are made by the API). */
export const ACTIONS = {
  send_email: 'Send an email',
  delay: 'Wait (delay)',
  delay_until_time: 'Wait until a time of day',
  condition: 'Condition (opened / clicked?)',
  move_to_sequence: 'Move to another sequence',
  add_tag_to_subscriber: 'Add tags',
  remove_tag_from_subscriber: 'Remove tags',
  deactivate_subscriber: 'Deactivate the subscriber',
  make_http_request: 'Make an HTTP request',
} satisfies Record<NonNullable<SequenceStepInput['action']>, string>;
export type Action = keyof typeof ACTIONS;

export const CONDITIONS = {
  any_email_opened: 'opened any email of the sequence',
  previous_email_opened: 'opened the previous email',
  any_email_clicked: 'clicked in any email of the sequence',
  previous_email_clicked: 'clicked in the previous email',
} satisfies Record<NonNullable<SequenceStep['condition_setting']>, string>;

const UNITS = { minutes: 60, hours: 3600, days: 86_400, seconds: 1 } as const;
type Unit = keyof typeof UNITS;

/** Seconds as the largest whole unit: 172800 → "2 days". */
export function duration(seconds: number): string {
  for (const unit of ['days', 'hours', 'minutes'] as const) {
    const size = UNITS[unit];
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${n === 1 ? unit.slice(0, -1) : unit}`;
    }
  }
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

function splitSeconds(seconds: number | undefined): { amount: string; unit: Unit } {
  if (seconds === undefined || seconds === 0) return { amount: seconds === 0 ? '0' : '', unit: 'hours' };
  for (const unit of ['days', 'hours', 'minutes'] as const) if (seconds % UNITS[unit] === 0) return { amount: String(seconds / UNITS[unit]), unit };
  return { amount: String(seconds), unit: 'seconds' };
}

/** The form's text state: every action's inputs, only the chosen action's are sent. */
export interface StepFields {
  label: string;
  subject: string;
  preheader: string;
  body: string;
  html_body: string;
  template_id: string;
  amount: string;
  unit: Unit;
  time: string;
  timezone: string;
  condition_setting: string;
  target_sequence_id: string;
  tags: string;
  http_method: string;
  url: string;
  headers: string;
}

export function fieldsOf(step?: SequenceStep): StepFields {
  const { amount, unit } = splitSeconds(step?.delay);
  return {
    label: step?.label ?? '',
    subject: step?.subject ?? '',
    preheader: step?.preheader ?? '',
    body: step?.body ?? '',
    html_body: step?.html_body ?? '',
    template_id: step?.template_id ? String(step.template_id) : '',
    amount: step ? amount : '1',
    unit: step ? unit : 'days',
    time: step?.time ?? '09:00',
    timezone: step?.timezone ?? 'UTC',
    condition_setting: step?.condition_setting ?? 'any_email_opened',
    target_sequence_id: step?.target_sequence_id ? String(step.target_sequence_id) : '',
    tags: (step?.tags ?? []).join(', '),
    http_method: step?.http_method ?? 'POST',
    url: step?.url ?? '',
    headers: Object.entries(step?.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  };
}

const orNull = (text: string) => (text.trim() === '' ? null : text);
const numberOrUndefined = (text: string) => (text.trim() === '' ? undefined : Number(text));

/**
 * The API body for `action` from the form: only that action's fields. Nothing is checked here:
 * the API decides and its 422 names the field (docs/sequences.md, "Steps").
 */
export function bodyOf(action: Action, f: StepFields): Record<string, unknown> {
  const seconds = f.amount.trim() === '' ? undefined : Math.round(Number(f.amount) * UNITS[f.unit]);
  const common = { label: orNull(f.label) };
  switch (action) {
    case 'send_email':
      return {
        ...common,
        subject: orNull(f.subject),
        preheader: orNull(f.preheader),
        body: orNull(f.body),
        html_body: orNull(f.html_body),
        template_id: numberOrUndefined(f.template_id) ?? null,
      };
    case 'delay':
      return { ...common, delay: seconds };
    case 'delay_until_time':
      return { ...common, time: f.time, timezone: f.timezone.trim() || 'UTC' };
    case 'condition':
      return { ...common, condition_setting: f.condition_setting, delay: seconds ?? 0 };
    case 'move_to_sequence':
      return { ...common, target_sequence_id: numberOrUndefined(f.target_sequence_id) };
    case 'add_tag_to_subscriber':
    case 'remove_tag_from_subscriber':
      return {
        ...common,
        tags: f.tags
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== ''),
      };
    case 'deactivate_subscriber':
      return common;
    case 'make_http_request': {
      const headers: Record<string, string> = {};
      for (const line of f.headers.split('\n')) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
      return { ...common, http_method: f.http_method, url: f.url, headers, body: orNull(f.body) };
    }
  }
}

export interface Choice {
  value: number;
  label: string;
}

/** The inputs of one action; `templates` and `sequences` are the choices the token may read. */
export function ActionFields({
  action,
  fields,
  onChange,
  templates,
  sequences,
}: {
  action: Action;
  fields: StepFields;
  onChange(fields: StepFields): void;
  templates: Choice[] | undefined;
  sequences: Choice[];
}) {
  const bind = (key: keyof StepFields) => ({
    name: key,
    value: fields[key],
    onInput: (e: Event) => onChange({ ...fields, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  const wait = (label: string, hint: string) => (
    <div class="row">
      <Field label={label} hint={hint}>
        <input type="number" min="0" step="any" inputMode="decimal" {...bind('amount')} />
      </Field>
      <Field label="Unit">
        <select {...bind('unit')} onChange={(e) => onChange({ ...fields, unit: e.currentTarget.value as Unit })}>
          {Object.keys(UNITS).map((u) => (
            <option key={u} value={u}>
              {u}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
  switch (action) {
    case 'send_email':
      return (
        <>
          <Field label="Subject" hint="Liquid, e.g. Welcome {{ subscriber.first_name }}; may be empty with a template.">
            <input {...bind('subject')} />
          </Field>
          <Field label="Preheader">
            <input {...bind('preheader')} />
          </Field>
          <Field label="Text body">
            <textarea rows={4} {...bind('body')} />
          </Field>
          <Field label="HTML body">
            <textarea rows={4} {...bind('html_body')} />
          </Field>
          {templates && templates.length > 0 && (
            <Field label="Template" hint="Fills the fields left empty, copied when the step is saved.">
              <select {...bind('template_id')} onChange={(e) => onChange({ ...fields, template_id: e.currentTarget.value })}>
                <option value="">None</option>
                {templates.map((t) => (
                  <option key={t.value} value={String(t.value)}>
                    {t.label}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </>
      );
    case 'delay':
      return wait('Wait for', 'From 1 second to 365 days.');
    case 'delay_until_time':
      return (
        <div class="row">
          <Field label="Time of day">
            <input type="time" {...bind('time')} />
          </Field>
          <Field label="Time zone" hint="An IANA name, e.g. Europe/Paris.">
            <input {...bind('timezone')} />
          </Field>
        </div>
      );
    case 'condition':
      return (
        <>
          <Field label="Goes the true way if the subscriber has">
            <select {...bind('condition_setting')} onChange={(e) => onChange({ ...fields, condition_setting: e.currentTarget.value })}>
              {Object.entries(CONDITIONS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          {wait('Check after', '0 checks at once; at most 365 days.')}
        </>
      );
    case 'move_to_sequence':
      return (
        <Field label="Target sequence">
          <select {...bind('target_sequence_id')} onChange={(e) => onChange({ ...fields, target_sequence_id: e.currentTarget.value })}>
            <option value="">Choose…</option>
            {sequences.map((s) => (
              <option key={s.value} value={String(s.value)}>
                {s.label}
              </option>
            ))}
          </select>
        </Field>
      );
    case 'add_tag_to_subscriber':
    case 'remove_tag_from_subscriber':
      return (
        <Field label="Tags (comma-separated)">
          <input {...bind('tags')} />
        </Field>
      );
    case 'deactivate_subscriber':
      return <p class="muted small">The subscriber is deactivated: they leave every sequence and get no more email.</p>;
    case 'make_http_request':
      return (
        <>
          <div class="row">
            <Field label="Method">
              <select {...bind('http_method')} onChange={(e) => onChange({ ...fields, http_method: e.currentTarget.value })}>
                {['POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
            <Field label="URL" hint="HTTPS, checked as webhook URLs are.">
              <input type="url" {...bind('url')} />
            </Field>
          </div>
          <Field label="Headers (one Name: value a line)">
            <textarea rows={2} {...bind('headers')} />
          </Field>
          <Field label="Body" hint="Liquid; empty sends the subscriber as JSON.">
            <textarea rows={3} {...bind('body')} />
          </Field>
        </>
      );
  }
}

/** A step's fields as a form: the action is chosen only when adding (an edit keeps it). */
export function useStepFields(step?: SequenceStep) {
  return useState<StepFields>(() => fieldsOf(step));
}
