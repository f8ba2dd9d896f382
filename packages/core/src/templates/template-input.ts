import { ValidationError } from '../errors';
import type { Template, TemplateFields, TemplatePurpose, Templates } from '../ports';

/** Create and update fields, already type-checked; absent means unchanged (update) or empty (create). */
export interface TemplateInput {
  label?: string;
  subject?: string | null;
  preheader?: string | null;
  body?: string | null;
  htmlBody?: string | null;
  purpose?: TemplatePurpose;
  defaultConfirmation?: boolean;
}

const LIQUID_FIELDS = [
  ['subject', 'subject'],
  ['preheader', 'preheader'],
  ['body', 'body'],
  ['htmlBody', 'html_body'],
] as const;

/**
 * The stored fields after the input: every problem at once, keyed by the API's field name; the
 * Liquid parser's message says where (line and column).
 */
export function toTemplateFields(input: TemplateInput, templates: Templates, current?: Template): TemplateFields {
  const fields: TemplateFields = {
    label: input.label ?? current?.label ?? '',
    subject: input.subject !== undefined ? input.subject : (current?.subject ?? null),
    preheader: input.preheader !== undefined ? input.preheader : (current?.preheader ?? null),
    body: input.body !== undefined ? input.body : (current?.body ?? null),
    htmlBody: input.htmlBody !== undefined ? input.htmlBody : (current?.htmlBody ?? null),
    purpose: input.purpose ?? current?.purpose ?? 'broadcast',
    defaultConfirmation: input.defaultConfirmation ?? current?.defaultConfirmation ?? false,
  };
  const errors: Record<string, string[]> = {};
  if (fields.label.trim() === '') errors.label = ["can't be blank"];
  for (const [key, name] of LIQUID_FIELDS) {
    const source = fields[key];
    if (source === null) continue;
    const problem = templates.check(source);
    if (problem !== null) errors[name] = [`is not valid Liquid: ${problem}`];
  }
  if (fields.purpose === 'confirmation') {
    // A confirmation email is rendered from subject and body alone.
    for (const key of ['subject', 'body'] as const) {
      if (fields[key] === null || fields[key].trim() === '') (errors[key] ??= []).push("can't be blank for a confirmation template");
    }
  } else if (fields.defaultConfirmation) {
    errors.default_confirmation = ['is only for confirmation templates'];
  }
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  return fields;
}
