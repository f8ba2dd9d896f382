import { templatePreviewSchema, templateSchema } from '../http/templates/templates.schemas';
import { boolean, closed, dateTime, integer, nestedOrFlat, nullableString, page, requestSchema, string, warned, type Schema } from './schema-helpers';

/** Broadcast and confirmation templates. Spread into SCHEMAS by schemas.ts. */
export const TEMPLATE_SCHEMAS: Record<string, Schema> = {
  Template: warned(
    closed({
      id: integer(),
      label: string(),
      subject: nullableString('Liquid.'),
      preheader: nullableString('Liquid.'),
      body: nullableString('Liquid.'),
      html_body: nullableString('Liquid.'),
      template_purpose: { type: 'string', enum: ['broadcast', 'confirmation'] },
      default_confirmation: boolean("The channel's default confirmation template (one at most)."),
      created_at: dateTime(),
      updated_at: dateTime(),
    }),
  ),
  TemplateList: page('Template'),
  TemplateInput: requestSchema(templateSchema),
  TemplateBody: nestedOrFlat('template', 'TemplateInput'),
  TemplatePreviewInput: requestSchema(templatePreviewSchema),
  TemplatePreviewBody: nestedOrFlat('template', 'TemplatePreviewInput'),
  TemplatePreview: warned(
    closed({
      subject: string('The rendered subject.'),
      preheader: nullableString('As given (it is shown hidden at the top of the HTML).'),
      text: string('The plain-text part.'),
      html: string('The HTML part.'),
    }),
  ),
};
