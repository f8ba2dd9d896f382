import { type Permission } from '@mailcast/domain';
import { ref, type Schema } from './schemas';

/**
 * The building blocks of the OpenAPI document's operations. Each area of the API writes its paths
 * in its own `<area>.paths.ts` with these helpers; document.ts puts them together.
 */

export type Json = { [key: string]: unknown };

export const json = (schema: Schema) => ({ 'application/json': { schema } });

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

/** A response of an authenticated operation: it carries the X-RateLimit-* headers. */
export const ok = (description: string, schema: Schema): Json => ({ description, headers: RATE_LIMIT_HEADERS, content: json(schema) });

export const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** null: any valid token of the channel may call it (the discovery calls). */
  permission: Permission | null;
  parameters?: Json[];
  body?: { schema: Schema; required?: boolean; description?: string };
  responses: Record<string, Json>;
  /** Error statuses beyond 401, 429, 500 and 503 (which every authenticated operation has). */
  errors: Array<'400' | '403' | '404' | '413' | '415' | '422'>;
}

export function authenticated(o: Operation): Json {
  const errors: Record<string, Json> = {
    '401': response('Unauthorized'),
    '429': response('RateLimited'),
    '500': response('InternalError'),
    '503': response('Unavailable'),
  };
  const bodyErrors = o.body ? (['400', '413', '415'] as const) : [];
  for (const status of [...bodyErrors, ...o.errors].sort()) {
    errors[status] = response(
      { '400': 'InvalidJson', '403': 'Forbidden', '404': 'NotFound', '413': 'TooLarge', '415': 'UnsupportedEncoding', '422': 'Unprocessable' }[status],
    );
  }
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: `${o.description ? `${o.description}\n\n` : ''}${o.permission === null ? 'Permission: none (any valid token).' : `Permission: \`${o.permission}\`.`}`,
    tags: [o.tag],
    ...(o.permission === null ? {} : { 'x-permission': o.permission }),
    ...(o.parameters ? { parameters: o.parameters } : {}),
    ...(o.body
      ? {
          requestBody: {
            required: o.body.required ?? true,
            ...(o.body.description ? { description: o.body.description } : {}),
            content: json(o.body.schema),
          },
        }
      : {}),
    responses: { ...o.responses, ...errors },
  };
}

export const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });

export const query = (name: string, schema: Schema, description: string, extra: Json = {}): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  ...extra,
});

export const BROADCASTS = 'Broadcasts';
export const STATISTICS = 'Statistics';
export const SUBSCRIBERS = 'Subscribers';
export const WEBHOOKS = 'Webhook endpoints';
export const OPERATIONS = 'Operations';
export const DISCOVERY = 'Discovery';
export const SEGMENTS = 'Segments';
export const EMAIL_SERVERS = 'Email servers';
export const PUBLIC = 'Public pages';

export function broadcastAction(operationId: string, verb: string, summary: string, description: string): Json {
  return {
    post: authenticated({
      operationId,
      summary,
      description,
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      responses: { '200': ok(`The broadcast ${verb}.`, ref('BroadcastAction')) },
      errors: ['404', '422'],
    }),
  };
}

export const subscriberByEmail = (operationId: string, summary: string, description: string, result: string): Json => ({
  post: authenticated({
    operationId,
    summary,
    description,
    tag: SUBSCRIBERS,
    permission: 'subscribers_write',
    body: { schema: ref('EmailBody') },
    responses: { '200': ok(result, ref('Subscriber')) },
    errors: ['404', '422'],
  }),
});

export const html = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

export function publicOperation(o: {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  responses: Record<string, Json>;
  parameters?: Json[];
}): Json {
  return {
    operationId: o.operationId,
    summary: o.summary,
    description: o.description,
    tags: [o.tag],
    security: [],
    ...(o.parameters ? { parameters: o.parameters } : {}),
    responses: o.responses,
  };
}

export const tokenParam: Json = {
  name: 'token',
  in: 'path',
  required: true,
  description: 'The opaque token of the link (it names one recipient; it cannot be forged or enumerated).',
  schema: { type: 'string' },
};
