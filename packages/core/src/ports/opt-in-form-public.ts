/**
 * What the public side of opt-in forms (the hosted page, the embed script, views and
 * submissions; docs/opt-in-forms.md) reads and counts. Records keep the stored settings objects
 * as they are; the public edge applies the defaults it relies on.
 */
export interface PublicFormBlock {
  blockType: string;
  position: number;
  textValue: string | null;
  inputFieldLabel: string | null;
  inputFieldPlaceholder: string | null;
  inputFieldValueType: string | null;
  customFieldKey: string | null;
  required: boolean;
  multiline: boolean;
  options: unknown;
  checkboxLabel: string | null;
  topicId: number | null;
  imageUrl: string | null;
  buttonLabel: string | null;
}

export interface PublicFormRecord {
  id: number;
  channelId: number;
  identifier: string;
  enabled: boolean;
  widgetType: string;
  parentFormId: number | null;
  variantWeight: number;
  allowedEmbeddingDomains: string[];
  themeSettings: Record<string, unknown>;
  securitySettings: Record<string, unknown>;
  triggerSettings: Record<string, unknown>;
  widgetSettings: Record<string, unknown>;
  /** The form view, by position. */
  blocks: PublicFormBlock[];
  /** What replaces the form after a sign-up, by position. */
  postSubmissionBlocks: PublicFormBlock[];
}

export interface PublicOptInForms {
  /** The form (main or variant) with this identifier, with its blocks; null when there is none. */
  findByIdentifier(identifier: string): Promise<PublicFormRecord | null>;
  /** A main form's variants, oldest first, with their blocks. */
  variantsOf(mainFormId: number): Promise<PublicFormRecord[]>;
}
export const PublicOptInForms = Symbol.for('mailcast.PublicOptInForms');

/**
 * The daily counters of opt_in_form_daily_statistics (sharded rows summed when read) and the
 * unique-visitor memory of opt_in_form_visitors. `day` is a UTC date, YYYY-MM-DD.
 */
export interface OptInFormCounters {
  /** Counts a view, and a unique view when this visitor was not yet counted for the form on that day. */
  recordView(formId: number, visitor: string, day: string): Promise<{ unique: boolean }>;
  recordSubmission(formId: number, day: string): Promise<void>;
}
export const OptInFormCounters = Symbol.for('mailcast.OptInFormCounters');
