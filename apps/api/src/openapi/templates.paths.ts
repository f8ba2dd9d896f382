import { authenticated, type Json, ok, param } from './operation';
import { ref } from './schemas';

export const TEMPLATES = 'Templates';

export const TEMPLATE_PATHS: Record<string, Json> = {
  '/api/v1/templates': {
    get: authenticated({
      operationId: 'listTemplates',
      summary: 'List templates',
      description: 'Most recently created first.',
      tag: TEMPLATES,
      permission: 'templates_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of templates.', ref('TemplateList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createTemplate',
      summary: 'Create a template',
      description:
        'A confirmation template needs a subject and a body. `default_confirmation: true` makes it the one double opt-in uses when no confirmation_template_id is given.',
      tag: TEMPLATES,
      permission: 'templates_write',
      body: { schema: ref('TemplateBody') },
      responses: { '201': ok('Created.', ref('Template')) },
      errors: ['422'],
    }),
  },
  '/api/v1/templates/preview': {
    post: authenticated({
      operationId: 'previewTemplate',
      summary: 'Preview unsaved template content',
      description:
        'Renders the Liquid of `subject`, `preheader`, `body` and `html_body` as a broadcast written from the template would be (a `confirmation` purpose: as the double opt-in email, text only), for a sample subscriber or the fields of `subscriber`, without saving anything: the links are the original ones, and `confirmation_url`, `unsubscribe_url` and `web_view_url` are placeholders. Invalid Liquid: the 422 a save answers, per field, the parser\'s message ending with `line:L, col:C`. A render that fails, or takes longer than the template time limit: 422 "Template cannot be rendered: …".',
      tag: TEMPLATES,
      permission: 'templates_read',
      body: { schema: ref('TemplatePreviewBody') },
      responses: { '200': ok('The rendered email.', ref('TemplatePreview')) },
      errors: ['422'],
    }),
  },
  '/api/v1/templates/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getTemplate',
      summary: 'Get a template',
      tag: TEMPLATES,
      permission: 'templates_read',
      responses: { '200': ok('The template.', ref('Template')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateTemplate',
      summary: 'Update a template',
      description: 'Only the fields given change; the result is validated as at create.',
      tag: TEMPLATES,
      permission: 'templates_write',
      body: { schema: ref('TemplateBody') },
      responses: { '200': ok('The updated template.', ref('Template')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteTemplate',
      summary: 'Delete a template',
      description: 'A template a scheduled or sending broadcast was written from: 422 "Template is used by a scheduled or sending broadcast".',
      tag: TEMPLATES,
      permission: 'templates_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
};
