import type { ComponentChildren } from 'preact';
import { ApiError } from './api';

/** A refusal split as the API answered it: `errors` by field, or one `error` for the whole request. */
export interface Refusal {
  fields: Record<string, string[]>;
  message: string | undefined;
}

export const NO_REFUSAL: Refusal = { fields: {}, message: undefined };

/**
 * What a failed write said (docs/dashboard.md, "Email servers"): a 422 `{errors: {field: [...]}}`
 * keeps its fields, so each message shows beside the field it names; a 422 `{error}` is split
 * over the form's `fields` where its parts name them (splitJoined); anything else (a 401, no
 * connection) is one message for the form. The page checks nothing itself.
 */
export function refusalOf(e: unknown, fields: readonly string[] = [], separator = ', '): Refusal {
  if (e instanceof ApiError) {
    if (Object.keys(e.fields).length > 0)
      return { fields: Object.fromEntries(Object.entries(e.fields).map(([field, messages]) => [field, [...messages]])), message: undefined };
    return splitJoined(e.message, fields, separator);
  }
  return { fields: {}, message: e instanceof Error ? e.message : String(e) };
}

/**
 * Most writes answer one `{error}` naming every problem, joined by commas, each part starting
 * with the field it concerns (`sender_email is not a valid email address`). Given the form's
 * field names, the parts that name one go beside it; the rest stay one message for the form.
 * Longest names first, so `reputation_guard.min_sent` is not taken for a shorter prefix. Some
 * areas join with `; ` (opt-in forms, docs/opt-in-forms.md "The API"): `separator` says which.
 */
export function splitJoined(message: string, fields: readonly string[], separator = ', '): Refusal {
  const byLength = [...fields].sort((a, b) => b.length - a.length);
  const refusal: Refusal = { fields: {}, message: undefined };
  const rest: string[] = [];
  for (const part of message.split(separator)) {
    const field = byLength.find((f) => part.startsWith(`${f} `));
    if (field === undefined) rest.push(part);
    else (refusal.fields[field] ??= []).push(part.slice(field.length + 1));
  }
  refusal.message = rest.length > 0 ? rest.join(separator) : undefined;
  return refusal;
}

/**
 * A labelled input with the API's messages for `name` under it (role=alert, so they are read
 * out) and the input marked invalid and described by them. `children` renders the input from the
 * attributes it is handed.
 */
export function CheckedField({
  label,
  name,
  hint,
  refusal,
  children,
}: {
  label: string;
  name: string;
  hint?: ComponentChildren;
  refusal: Refusal;
  children: (attributes: { id: string; name: string; 'aria-invalid'?: 'true'; 'aria-describedby'?: string }) => ComponentChildren;
}) {
  const id = `field-${name}`;
  const messages = refusal.fields[name] ?? [];
  const described = [hint ? `${id}-hint` : '', messages.length > 0 ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field" data-field={name}>
      <label class="field-label" for={id}>
        {label}
      </label>
      {children({ id, name, ...(messages.length > 0 ? { 'aria-invalid': 'true' as const } : {}), ...(described ? { 'aria-describedby': described } : {}) })}
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {messages.length > 0 && (
        <span class="field-error" id={`${id}-error`} role="alert">
          {name} {messages.join(', ')}
        </span>
      )}
    </div>
  );
}
