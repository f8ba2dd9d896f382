import { BLOCK_TYPES, FORM_TYPES, INPUT_VALUE_TYPES, WIDGET_TYPES } from '@mailcast/core';
import { blockAttributeFields, blockFields, duplicateFields, formFields, variantFields } from '../http/opt-in-forms/opt-in-forms.schemas';
import {
  arrayOf,
  boolean,
  closed,
  dateTime,
  integer,
  nestedOrFlat,
  nullableString,
  number,
  ref,
  requestSchema,
  string,
  warned,
  type Schema,
} from './schema-helpers';

const nullableInteger = (description?: string): Schema => ({ type: ['integer', 'null'], ...(description ? { description } : {}) });
const enumOf = (values: readonly string[], description?: string): Schema => ({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const nullableEnum = (values: readonly string[]): Schema => ({ type: ['string', 'null'], enum: [...values, null] });

/** The input's schema of a settings group, as the form answers it (every key, defaults applied). */
const formInput = requestSchema(formFields);
const settingsGroup = (name: string): Schema => {
  const input = (formInput.properties as Record<string, Schema>)[name]!;
  return { type: 'object', description: input.description, additionalProperties: true };
};

const figures = {
  views: integer('Every view.'),
  unique_views: integer('Visitors counted once per form and day.'),
  submissions: integer(),
  conversion_rate: number('submissions ÷ unique_views, a percentage rounded to two decimals; 0 without views.'),
};

const blockProperties: Record<string, Schema> = {
  id: integer(),
  block_type: enumOf(BLOCK_TYPES),
  position: integer(),
  text_value: nullableString(),
  input_field_label: nullableString(),
  input_field_placeholder: nullableString(),
  input_field_value_type: nullableEnum(INPUT_VALUE_TYPES),
  custom_field_key: nullableString(),
  required: boolean(),
  multiline: boolean(),
  options: arrayOf(string()),
  checkbox_label: nullableString(),
  topic_id: nullableInteger(),
  image_url: nullableString(),
  button_label: nullableString(),
  custom_css: nullableString(),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const formProperties: Record<string, Schema> = {
  id: integer(),
  identifier: { type: 'string', format: 'uuid', description: 'Names the form in its public URLs.' },
  label: string(),
  form_type: enumOf(FORM_TYPES),
  widget_type: enumOf(WIDGET_TYPES),
  enabled: boolean(),
  allowed_embedding_domains: arrayOf(string(), 'Hosts allowed to embed the form; empty: any.'),
  theme_settings: settingsGroup('theme_settings'),
  automation_settings: settingsGroup('automation_settings'),
  security_settings: settingsGroup('security_settings'),
  trigger_settings: settingsGroup('trigger_settings'),
  widget_settings: settingsGroup('widget_settings'),
  confirmation_email_template_id: nullableInteger(),
  welcome_email_template_id: nullableInteger(),
  confirmation_redirect_url: nullableString(),
  include_unsubscribe_link_in_confirmation: boolean(),
  analytics: closed(
    {
      views_count: integer(),
      unique_views_count: integer(),
      submissions_count: integer(),
      conversion_rate: number('submissions ÷ unique views, a percentage; 0 without views.'),
    },
    'All-time figures of this form (a variant counts its own).',
  ),
  is_variant: boolean(),
  parent_form_id: nullableInteger('The main form of a variant.'),
  variant_name: nullableString(),
  variant_weight: integer('Share of visitors, 0 to 100; a main form 50.'),
  variants_count: integer(),
  opt_in_form_blocks: arrayOf(ref('OptInFormBlock'), 'The form view, by position.'),
  opt_in_post_submission_blocks: arrayOf(ref('OptInFormBlock'), 'What replaces the form after a sign-up, by position.'),
  embed_url: string('PUBLIC_URL/f/<identifier>/embed.js'),
  created_at: dateTime(),
  updated_at: dateTime(),
};

/** Opt-in forms (docs/opt-in-forms.md). Spread into SCHEMAS by schemas.ts. */
export const OPT_IN_FORM_SCHEMAS: Record<string, Schema> = {
  OptInForm: warned(closed(formProperties)),
  OptInFormBlock: closed(blockProperties),
  OptInFormPage: closed({
    opt_in_forms: arrayOf(ref('OptInForm')),
    pagination: closed({
      prev: nullableInteger(),
      next: nullableInteger(),
      count: integer('Main forms in the whole list.'),
      pages: integer(),
      page: integer(),
    }),
  }),
  OptInFormInput: formInput,
  OptInFormBody: nestedOrFlat('opt_in_form', 'OptInFormInput'),
  OptInFormBlockInput: requestSchema(blockFields),
  OptInFormBlockAttributes: requestSchema(blockAttributeFields),
  OptInFormVariantInput: requestSchema(variantFields),
  OptInFormVariantBody: nestedOrFlat('variant', 'OptInFormVariantInput'),
  OptInFormDuplicateInput: requestSchema(duplicateFields),
  OptInFormDuplicateBody: nestedOrFlat('opt_in_form', 'OptInFormDuplicateInput'),
  OptInFormAnalytics: warned(
    closed({
      form_id: integer(),
      start_date: { type: 'string', format: 'date' },
      end_date: { type: 'string', format: 'date' },
      totals: closed(figures, "The form's own figures over the range."),
      daily: arrayOf(closed({ date: { type: 'string', format: 'date' }, ...figures }), 'Every day of the range, oldest first.'),
      variants: arrayOf(
        closed({ form_id: integer(), variant_name: string(), variant_weight: integer(), ...figures }),
        "A main form's variants, each over the same range.",
      ),
    }),
  ),
};
