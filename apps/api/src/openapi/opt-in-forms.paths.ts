import { listQuery } from '../http/opt-in-forms/opt-in-forms.schemas';
import { authenticated, type Json, ok, param, query } from './operation';
import { queryParameters, ref } from './schema-helpers';

export const OPT_IN_FORMS = 'Opt-in forms';

const FORM_422 =
  '422 naming the field, nothing written: a blank label; an unknown form_type, widget_type, trigger or frequency (the message lists the words); a theme colour that is not hex, or a theme value holding ; { } < > url( or expression(; a template, sequence or topic not of this channel; a form view without exactly one email input; a post-submission block other than heading, text, image, divider, spacer; a custom_field_key not matching ^[a-z][a-z0-9_]*$; a topic twice in one form.';

export const OPT_IN_FORM_PATHS: Record<string, Json> = {
  '/api/v1/opt_in_forms': {
    get: authenticated({
      operationId: 'listOptInForms',
      summary: 'List opt-in forms',
      description: 'Main forms only (variants are counted in variants_count), oldest first, 250 a page.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_read',
      parameters: queryParameters(listQuery),
      responses: { '200': ok('A page of forms.', ref('OptInFormPage')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createOptInForm',
      summary: 'Create an opt-in form',
      description: `Settings not given take their defaults; without blocks the form gets an email input, a "Sign Up" button and a thank-you text after the sign-up. ${FORM_422}`,
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_write',
      body: { schema: ref('OptInFormBody') },
      responses: { '201': ok('Created.', ref('OptInForm')) },
      errors: ['422'],
    }),
  },
  '/api/v1/opt_in_forms/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getOptInForm',
      summary: 'Get an opt-in form',
      description: 'A main form or a variant.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_read',
      responses: { '200': ok('The form.', ref('OptInForm')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateOptInForm',
      summary: 'Update an opt-in form',
      description: `Only the fields given change. Settings objects are deep-merged into the current ones, null deleting a key (back to its default). Block lists given are replaced (opt_in_form_blocks) or edited by id (…_attributes, _destroy). ${FORM_422}`,
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_write',
      body: { schema: ref('OptInFormBody') },
      responses: { '200': ok('The form.', ref('OptInForm')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteOptInForm',
      summary: 'Delete an opt-in form',
      description: 'Its variants, blocks and figures go with it.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404'],
    }),
  },
  '/api/v1/opt_in_forms/{id}/analytics': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getOptInFormAnalytics',
      summary: 'Figures of an opt-in form',
      description:
        'Views, unique views and submissions per UTC day, default the last 30 days up to today. A date that cannot be read is ignored with a `parameter_ignored` warning; end_date before start_date: 422.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_read',
      parameters: [
        query('start_date', { type: 'string', format: 'date' }, 'First day (YYYY-MM-DD), default 29 days before end_date.'),
        query('end_date', { type: 'string', format: 'date' }, 'Last day (YYYY-MM-DD), default today (UTC).'),
      ],
      responses: { '200': ok('The figures.', ref('OptInFormAnalytics')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/opt_in_forms/{id}/variants': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'createOptInFormVariant',
      summary: 'Create a variant of an opt-in form',
      description: 'A copy of the main form with its own identifier, named "Variant B", "Variant C"… unless named; a variant of a variant: 422.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_write',
      body: { schema: ref('OptInFormVariantBody') },
      responses: { '201': ok('The variant.', ref('OptInForm')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/opt_in_forms/{id}/duplicate': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'duplicateOptInForm',
      summary: 'Duplicate an opt-in form',
      description: 'A new main form: new identifier, "<label> (Copy)" unless labelled, no variants, no figures.',
      tag: OPT_IN_FORMS,
      permission: 'opt_in_forms_write',
      body: { schema: ref('OptInFormDuplicateBody') },
      responses: { '201': ok('The copy.', ref('OptInForm')) },
      errors: ['404', '422'],
    }),
  },
};
