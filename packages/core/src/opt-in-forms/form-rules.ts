import { NotFoundError, ValidationError } from '../errors';
import {
  CUSTOM_FIELD_KEY,
  POST_SUBMISSION_BLOCK_TYPES,
  type OptInForm,
  type OptInFormAttributes,
  type OptInFormBlock,
  type OptInFormBlockFields,
  type OptInFormBlockWrite,
  type Repositories,
} from '../ports';
import type { SettingsGroup } from './form-settings';

export const OPT_IN_FORM_NOT_FOUND = 'Opt-in form not found';
export const DEFAULT_BUTTON_LABEL = 'Sign Up';
export const DEFAULT_THANK_YOU = 'Thanks for signing up!';
export const ONE_EMAIL_INPUT = 'The form view must have exactly one email input';
export const VARIANT_OF_VARIANT = 'A variant cannot have variants';
export const VARIANTS_ONLY = 'variant_name and variant_weight can only be set on a variant';

/** A block as written: fields not given take the block defaults; `position` its place in the list. */
export type BlockInput = Partial<OptInFormBlockFields>;
export type BlockAttributesInput = BlockInput & { id?: number; destroy?: boolean };
/** One block list of a write: replaced whole, or edited block by block (`*_attributes`). */
export type BlockListInput = { replace: BlockInput[] } | { edit: BlockAttributesInput[] };

/** A create or update: fields given; settings as snake_case patches merged into the current ones. */
export interface OptInFormInput {
  attributes: Partial<Omit<OptInFormAttributes, 'themeSettings' | 'automationSettings' | 'securitySettings' | 'triggerSettings' | 'widgetSettings'>>;
  /** null resets a whole group to its defaults. */
  settings: Partial<Record<SettingsGroup, Record<string, unknown> | null>>;
  formBlocks?: BlockListInput;
  postSubmissionBlocks?: BlockListInput;
  /** A variant's own name and weight (PATCH of a variant only). */
  variant?: { name?: string; weight?: number };
}

export const BLOCK_DEFAULTS: OptInFormBlockFields = {
  blockType: 'text',
  position: 0,
  textValue: null,
  inputFieldLabel: null,
  inputFieldPlaceholder: null,
  inputFieldValueType: null,
  customFieldKey: null,
  required: false,
  multiline: false,
  options: [],
  checkboxLabel: null,
  topicId: null,
  imageUrl: null,
  buttonLabel: null,
  customCss: null,
};

/** docs/opt-in-forms.md "Blocks": a form created without blocks. */
export function defaultBlocks(): { formBlocks: OptInFormBlockWrite[]; postSubmissionBlocks: OptInFormBlockWrite[] } {
  return {
    formBlocks: [
      {
        ...BLOCK_DEFAULTS,
        blockType: 'input_field',
        position: 0,
        inputFieldValueType: 'email',
        inputFieldLabel: 'Email',
        inputFieldPlaceholder: 'you@example.com',
        required: true,
      },
      { ...BLOCK_DEFAULTS, blockType: 'button', position: 1, buttonLabel: DEFAULT_BUTTON_LABEL },
    ],
    postSubmissionBlocks: [{ ...BLOCK_DEFAULTS, blockType: 'text', position: 0, textValue: DEFAULT_THANK_YOU }],
  };
}

export async function formOrNotFound(r: Repositories, channelId: number, id: number, forUpdate = false): Promise<OptInForm> {
  const form = await r.optInForms.findById(channelId, id, { forUpdate });
  if (form === null) throw new NotFoundError(OPT_IN_FORM_NOT_FOUND);
  return form;
}

const withDefaults = (b: BlockInput, index: number): OptInFormBlockFields => {
  const block: OptInFormBlockFields = { ...BLOCK_DEFAULTS, position: index, ...b };
  if (block.blockType === 'button' && block.buttonLabel === null) block.buttonLabel = DEFAULT_BUTTON_LABEL;
  return block;
};

/** The list a block write ends with: positions default to the order given. */
export function resolveBlocks(current: readonly OptInFormBlock[], input: BlockListInput, field: string): OptInFormBlockWrite[] {
  if ('replace' in input) return input.replace.map(withDefaults);
  const byId = new Map(current.map((b) => [b.id, b]));
  const touched = new Map<number, BlockAttributesInput>();
  const added: OptInFormBlockWrite[] = [];
  const errors: string[] = [];
  for (const item of input.edit) {
    const { id, destroy, ...fields } = item;
    if (id === undefined) {
      if (destroy !== true) added.push(withDefaults(fields, current.length + added.length));
    } else if (!byId.has(id)) errors.push(`${field}: block ${id} is not a block of this list`);
    else touched.set(id, item);
  }
  if (errors.length > 0) throw new ValidationError(errors.join('; '));
  const kept: OptInFormBlockWrite[] = [];
  for (const block of current) {
    const change = touched.get(block.id);
    if (change?.destroy === true) continue;
    const { id: _id, destroy: _destroy, ...fields } = change ?? {};
    const { formId: _form, placement: _placement, createdAt: _created, updatedAt: _updated, ...own } = block;
    kept.push(withDefaults({ ...own, ...fields }, block.position));
    kept[kept.length - 1]!.id = block.id;
  }
  return [...kept, ...added];
}

/**
 * The checks over a form's blocks as they will be (docs/opt-in-forms.md "Blocks"): exactly one
 * email input in the form view, content only after the sign-up, custom field keys, topics of
 * the channel each at most once. Every problem at once, as one message.
 */
export async function checkBlocks(
  r: Repositories,
  channelId: number,
  formBlocks: readonly OptInFormBlockFields[],
  postSubmissionBlocks: readonly OptInFormBlockFields[],
): Promise<void> {
  const errors: string[] = [];
  const emailInputs = formBlocks.filter((b) => b.blockType === 'input_field' && b.inputFieldValueType === 'email').length;
  if (emailInputs !== 1) errors.push(`${ONE_EMAIL_INPUT} (it has ${emailInputs})`);
  const notAllowed = [...new Set(postSubmissionBlocks.map((b) => b.blockType).filter((t) => !POST_SUBMISSION_BLOCK_TYPES.includes(t)))];
  if (notAllowed.length > 0) {
    errors.push(`opt_in_post_submission_blocks allow only ${POST_SUBMISSION_BLOCK_TYPES.join(', ')} blocks (not ${notAllowed.join(', ')})`);
  }
  for (const b of [...formBlocks, ...postSubmissionBlocks]) {
    if (b.customFieldKey !== null && !CUSTOM_FIELD_KEY.test(b.customFieldKey)) {
      errors.push(`custom_field_key "${b.customFieldKey}" must start with a lowercase letter and hold only a-z, 0-9 and _`);
    }
  }
  const custom = formBlocks.filter((b) => (b.blockType === 'custom_field' || b.inputFieldValueType === 'custom') && b.customFieldKey === null);
  if (custom.length > 0) errors.push('custom_field_key is required for a custom field');
  const topics = formBlocks.filter((b) => b.blockType === 'topic');
  if (topics.some((b) => b.topicId === null)) errors.push('topic_id is required for a topic block');
  const topicIds = topics.map((b) => b.topicId).filter((t): t is number => t !== null);
  const repeated = [...new Set(topicIds.filter((t, i) => topicIds.indexOf(t) !== i))];
  if (repeated.length > 0) errors.push(`topic_id ${repeated.join(', ')} appears more than once in this form`);
  const allTopics = [...new Set([...formBlocks, ...postSubmissionBlocks].map((b) => b.topicId).filter((t): t is number => t !== null))];
  if (allTopics.length > 0) {
    const mine = new Set(await r.optInForms.existingTopics(channelId, allTopics));
    const unknown = allTopics.filter((t) => !mine.has(t));
    if (unknown.length > 0) errors.push(`topic_id ${unknown.join(', ')} is not a topic of this channel`);
  }
  if (errors.length > 0) throw new ValidationError(errors.join('; '));
}

/** Template and sequence ids a form names must be this channel's. */
export async function checkReferences(
  r: Repositories,
  channelId: number,
  next: Pick<OptInForm, 'confirmationEmailTemplateId' | 'welcomeEmailTemplateId' | 'automationSettings'>,
): Promise<void> {
  const errors: string[] = [];
  for (const [field, id] of [
    ['confirmation_email_template_id', next.confirmationEmailTemplateId],
    ['welcome_email_template_id', next.welcomeEmailTemplateId],
  ] as const) {
    if (id !== null && (await r.templates.findById(channelId, id)) === null) errors.push(`${field} ${id} is not a template of this channel`);
  }
  const sequenceIds = next.automationSettings.sequenceIds;
  if (sequenceIds.length > 0) {
    const mine = new Set(await r.sequences.existing(channelId, sequenceIds));
    const unknown = sequenceIds.filter((s) => !mine.has(s));
    if (unknown.length > 0) errors.push(`automation_settings.sequence_ids ${unknown.join(', ')} are not sequences of this channel`);
  }
  if (errors.length > 0) throw new ValidationError(errors.join('; '));
}

/** A UUID (version 4) from 16 random bytes. */
export function uuidFrom(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
