import type { Schemas, Topic } from '../api';
import { CheckedField, type Refusal } from '../field-errors';
import { BlockList, type DraftBlock } from './form-blocks';

type Template = Schemas['Template'];

/** What a form does once a visitor has signed up (docs/dashboard.md, "Forms: after sign-up"). */
export interface AfterSignUp {
  blocks: DraftBlock[];
  redirect: string;
  confirmation_email_template_id: number | null;
  welcome_email_template_id: number | null;
  include_unsubscribe_link_in_confirmation: boolean;
}

/** The form's fields this section edits: a refusal naming one shows beside it. */
export const AFTER_FIELDS = [
  'confirmation_redirect_url',
  'confirmation_email_template_id',
  'welcome_email_template_id',
  'opt_in_post_submission_blocks',
] as const;

/** Post-submission blocks: the types the API allows there (docs/opt-in-forms.md, "Blocks"). */
const AFTER_LIST = {
  legend: 'After sign-up',
  list: 'after-list',
  picker: 'new_after_block_type',
  prefix: 'after sign-up',
  types: ['text', 'heading', 'image', 'divider', 'spacer'],
} as const;

const idOf = (value: string) => (value === '' ? null : Number(value));

/**
 * The post-submission editor: the blocks that replace the form (drawn by the preview's "After
 * sign-up" view), the confirmation redirect URL, and the templates of the confirmation and
 * welcome emails picked from the channel's templates (confirmation-purpose ones for the
 * confirmation, the others for the welcome). A template the list no longer holds stays
 * selectable under its id, so opening a form never changes it.
 */
export function AfterSignUpFields({
  value,
  onChange,
  templates,
  topics,
  welcomeOn,
  doubleOptIn,
  refusal,
}: {
  value: AfterSignUp;
  onChange(v: AfterSignUp): void;
  templates: readonly Template[];
  topics: Topic[];
  welcomeOn: boolean;
  doubleOptIn: boolean;
  refusal: Refusal;
}) {
  const set = (patch: Partial<AfterSignUp>) => onChange({ ...value, ...patch });
  const picker = (
    field: 'confirmation_email_template_id' | 'welcome_email_template_id',
    label: string,
    none: string,
    hint: string,
    purpose: Template['template_purpose'],
  ) => {
    const chosen = value[field];
    const choices = templates.filter((t) => t.template_purpose === purpose);
    return (
      <CheckedField label={label} name={field} hint={hint} refusal={refusal}>
        {(attributes) => (
          <select {...attributes} value={chosen === null ? '' : String(chosen)} onChange={(e) => set({ [field]: idOf(e.currentTarget.value) })}>
            <option value="">{none}</option>
            {choices.map((t) => (
              <option key={t.id} value={String(t.id)}>
                {t.label}
              </option>
            ))}
            {chosen !== null && !choices.some((t) => t.id === chosen) && <option value={String(chosen)}>Template #{chosen}</option>}
          </select>
        )}
      </CheckedField>
    );
  };
  return (
    <fieldset class="stack after-signup">
      <legend>After sign-up</legend>
      <BlockList blocks={value.blocks} topics={topics} onChange={(blocks) => set({ blocks })} place={{ ...AFTER_LIST, legend: 'What replaces the form' }} />
      {refusal.fields.opt_in_post_submission_blocks && (
        <p class="field-error" role="alert">
          opt_in_post_submission_blocks {refusal.fields.opt_in_post_submission_blocks.join(', ')}
        </p>
      )}
      <CheckedField
        label="Confirmation redirect URL"
        name="confirmation_redirect_url"
        hint="Where a person goes once they confirm (http or https); empty shows our confirmation page."
        refusal={refusal}
      >
        {(attributes) => (
          <input
            {...attributes}
            type="url"
            inputMode="url"
            value={value.redirect}
            placeholder="https://example.com/thanks"
            onInput={(e) => set({ redirect: e.currentTarget.value })}
          />
        )}
      </CheckedField>
      {picker(
        'confirmation_email_template_id',
        'Confirmation email',
        "The channel's default",
        doubleOptIn ? 'Sent to confirm a new address (double opt-in).' : 'Used only with double opt-in.',
        'confirmation',
      )}
      <label>
        <input
          type="checkbox"
          name="include_unsubscribe_link_in_confirmation"
          checked={value.include_unsubscribe_link_in_confirmation}
          onChange={(e) => set({ include_unsubscribe_link_in_confirmation: e.currentTarget.checked })}
        />{' '}
        Unsubscribe link in the confirmation email
      </label>
      {picker(
        'welcome_email_template_id',
        'Welcome email',
        'The built-in welcome',
        welcomeOn ? 'Sent once to each subscriber this form brings in.' : 'Used only with “Send a welcome email”.',
        'broadcast',
      )}
    </fieldset>
  );
}
