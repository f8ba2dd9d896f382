import { html, json, type Json, PUBLIC, publicOperation } from './operation';

const identifier: Json = {
  name: 'identifier',
  in: 'path',
  required: true,
  description: "The form's (or a variant's) `identifier`, a UUID.",
  schema: { type: 'string', format: 'uuid' },
};

const error = (description: string): Json => ({
  description,
  content: json({ type: 'object', required: ['error'], properties: { error: { type: 'string' } } }),
});

const preflight = (operationId: string): Json =>
  publicOperation({
    operationId,
    summary: 'CORS preflight',
    description: 'Any origin may ask; the allowed embedding domains are checked on the call itself.',
    tag: PUBLIC,
    responses: { '204': { description: 'Allowed methods and headers.' } },
  });

const submission: Json = {
  type: 'object',
  description: 'JSON, or form-encoded with `custom_data[<key>]` and `topics[<topic id>]` keys. Only the custom fields the form asks for are read.',
  properties: {
    email: { type: 'string' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    name: { type: 'string', description: 'Split at the first space when `first_name` is not given.' },
    custom_data: { type: 'object', additionalProperties: true },
    topics: { type: 'object', additionalProperties: { type: ['boolean', 'string', 'integer'] } },
    website: { type: 'string', description: 'The honeypot: a person leaves it empty.' },
    rendered_at: { type: 'integer', description: 'Epoch milliseconds when the form was shown (the render data’s `servedAt`).' },
    visitor_id: { type: 'string' },
    'cf-turnstile-response': { type: 'string' },
  },
};

/** The visitor-facing side of opt-in forms (docs/opt-in-forms.md, "Public endpoints"): no authentication. */
export const FORM_PUBLIC_PATHS: Record<string, Json> = {
  '/f/{identifier}': {
    parameters: [identifier],
    get: publicOperation({
      operationId: 'hostedFormPage',
      summary: 'The hosted sign-up page',
      description: 'The form (or the variant this visitor is assigned) as a page under a strict Content-Security-Policy.',
      tag: PUBLIC,
      responses: { '200': html('The page.'), '404': html('Unknown or disabled form.') },
    }),
  },
  '/f/{identifier}/embed.js': {
    parameters: [identifier],
    get: publicOperation({
      operationId: 'formEmbedScript',
      summary: 'The embed script',
      description: 'One script for every widget type; it loads the render data from `form.json` and nothing from another host.',
      tag: PUBLIC,
      responses: { '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } } },
    }),
  },
  '/f/{identifier}/form.json': {
    parameters: [identifier],
    get: publicOperation({
      operationId: 'formRenderData',
      summary: 'What the embed script renders',
      description: 'The variant assigned to `visitor` (a random id the browser keeps), its blocks, theme, trigger and widget settings.',
      tag: PUBLIC,
      parameters: [{ name: 'visitor', in: 'query', required: false, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'The render data.', content: json({ type: 'object', additionalProperties: true }) },
        '403': error('The calling site is not among the allowed embedding domains.'),
        '404': error('Unknown or disabled form.'),
      },
    }),
    options: preflight('formRenderDataPreflight'),
  },
  '/f/{identifier}/view': {
    parameters: [identifier],
    post: publicOperation({
      operationId: 'recordFormView',
      summary: 'Count a view',
      description: 'A view, and a unique view once per visitor, form and UTC day.',
      tag: PUBLIC,
      responses: {
        '200': { description: 'Counted.', content: json({ type: 'object', properties: { counted: { type: 'boolean' }, unique: { type: 'boolean' } } }) },
        '403': error('The calling site is not among the allowed embedding domains.'),
        '404': error('Unknown or disabled form.'),
        '422': error('`visitor_id` missing or malformed.'),
        '429': error('Too many views from this address.'),
      },
    }),
    options: preflight('recordFormViewPreflight'),
  },
  '/f/{identifier}/submit': {
    parameters: [identifier],
    post: {
      ...publicOperation({
        operationId: 'submitForm',
        summary: 'Sign up through a form',
        description:
          'Protections in order: allowed origin, per-address limit (answered before any database query), the form’s own limit, honeypot and minimum time (a bot gets the same 200 and nothing is written), Turnstile. A form posted without script (`Accept: text/html`) gets a page back.',
        tag: PUBLIC,
        responses: {
          '200': {
            description: 'Subscribed, or a confirmation email is on its way.',
            content: json({
              type: 'object',
              required: ['status', 'message'],
              properties: { status: { enum: ['subscribed', 'confirmation_required'] }, message: { type: 'string' } },
            }),
          },
          '403': error('Origin not allowed, or the Turnstile check failed.'),
          '404': error('Unknown or disabled form.'),
          '422': { description: 'A bad email address.', content: json({ type: 'object', properties: { errors: { type: 'object' } } }) },
          '429': error('Too many submissions from this address; see Retry-After.'),
        },
      }),
      requestBody: { required: true, content: { ...json(submission), 'application/x-www-form-urlencoded': { schema: submission } } },
    },
    options: preflight('submitFormPreflight'),
  },
};
