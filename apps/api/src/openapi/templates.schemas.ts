import { boolean, closed, dateTime, integer, nestedOrFlat, nullableString, page, string, type Schema } from './schema-helpers';

/** Broadcast and confirmation templates. Spread into SCHEMAS by schemas.ts. */
export const TEMPLATE_SCHEMAS: Record<string, Schema> = {
  Template: closed({
    id: integer(),
    label: string(),
    subject: nullableString('Liquid.'),
    preheader: nullableString('Liquid.'),
    body: nullableString('Liquid.'),
    html_body: nullableString('Liquid.'),
    template_purpose: { type: 'string', enum: ['broadcast', 'confirmation'] },
    default_confirmation: boolean('The channel\'s default confirmation template (one at most).'),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  TemplateList: page('Template'),
  TemplateInput: {
    type: 'object',
    description: 'Every Liquid field is checked at save: invalid Liquid is a 422 `{"errors": {field: ["is not valid Liquid: … line:L, col:C"]}}`.',
    properties: {
      label: string('Required on create.'),
      subject: nullableString(),
      preheader: nullableString(),
      body: nullableString(),
      html_body: nullableString(),
      template_purpose: { type: 'string', enum: ['broadcast', 'confirmation'], default: 'broadcast' },
      default_confirmation: boolean('Confirmation templates only; makes the previous default an ordinary one.'),
    },
  },
  TemplateBody: nestedOrFlat('template', 'TemplateInput'),
};
