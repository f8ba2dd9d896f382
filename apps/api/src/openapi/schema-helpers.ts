import type Joi from 'joi';
import parseJoi from 'joi-to-json';

/** The building blocks of the schemas of the OpenAPI document (schemas.ts and the <area>.schemas.ts files). */

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type Schema = { [keyword: string]: unknown };

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

// Response objects are closed (additionalProperties: false) and list every field as required:
// the agreement test then fails on a field the API adds, drops or renames without the document.
export function closed(properties: Record<string, Schema>, description?: string): Schema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

/**
 * A create or update answer: the resource, and `warnings` when the body carried attributes the
 * API does not take (docs/discovery.md, Warnings). Optional, so the same schema serves reads.
 */
export function warned(schema: Schema): Schema {
  return { ...schema, properties: { ...(schema.properties as Record<string, Schema>), warnings: { $ref: '#/components/schemas/Warnings' } } };
}

export const string = (description?: string): Schema => ({ type: 'string', ...(description ? { description } : {}) });
export const nullableString = (description?: string): Schema => ({ type: ['string', 'null'], ...(description ? { description } : {}) });
export const integer = (description?: string): Schema => ({ type: 'integer', ...(description ? { description } : {}) });
export const number = (description?: string): Schema => ({ type: 'number', ...(description ? { description } : {}) });
export const boolean = (description?: string): Schema => ({ type: 'boolean', ...(description ? { description } : {}) });
export const dateTime = (description?: string): Schema => ({ type: 'string', format: 'date-time', ...(description ? { description } : {}) });
export const nullableDateTime = (description?: string): Schema => ({
  type: ['string', 'null'],
  format: 'date-time',
  ...(description ? { description } : {}),
});
export const arrayOf = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
export const freeObject = (description: string): Schema => ({ type: 'object', additionalProperties: true, description });

/** A list page of the broadcast, webhook endpoint and delivery lists (docs/api-decisions.md Lists). */
export const page = (item: string): Schema =>
  closed({ data: arrayOf(ref(item)), total: integer('Number of items in the whole list, before limit and offset.') });

/**
 * docs/api-decisions.md "Two body forms": bodies arrive nested under the resource key (canonical, as the
 * spec shows) or flat at the top level. `anyOf`, not `oneOf`: a nested body of optional fields
 * would also satisfy the open flat form.
 */
export function nestedOrFlat(key: string, input: string, extra: Record<string, Schema> = {}): Schema {
  return {
    description: `The fields nested under \`${key}\` (canonical), or the same fields flat at the top level (accepted for compatibility).`,
    anyOf: [
      {
        type: 'object',
        title: `Nested under ${key}`,
        properties: { [key]: ref(input), ...extra },
        required: [key],
      },
      { type: 'object', title: 'Flat', allOf: [ref(input)], ...(Object.keys(extra).length > 0 ? { properties: extra } : {}) },
    ],
  };
}

/**
 * The OpenAPI schema of a joi request schema (joi-to-json, `open-api-3.1`): the routes validate
 * with the joi object, and the document describes that same object, so a field is declared once.
 *
 * Two conventions of the request schemas are carried over:
 * - `.unknown(true)` on an object with named keys means "ignored, and answered with a warning"
 *   (docs/discovery.md, Warnings), not "part of the shape": the keys are the documented shape. An
 *   object without named keys (`custom_data`) stays free.
 * - `.meta({ 'x-openapi': {...} })` says what the use case checks rather than joi (an event type,
 *   a segment rule, a null that is refused as blank, a default it fills in): one with `type` or
 *   `$ref` stands instead of the converted schema (its description kept), any other is merged
 *   over it.
 */
export function requestSchema(joi: Joi.Schema): Schema {
  return tidy(parseJoi(joi as never, 'open-api-3.1')) as Schema;
}

const DOCUMENT_ONLY = 'x-openapi';
const PARAMETER = 'x-openapi-parameter';

/**
 * The query parameters of a joi query schema, one per key: its description becomes the
 * parameter's. `.meta({ 'x-openapi-parameter': {...} })` on a key sets what only a parameter has
 * (a `tags[]` name, a `deepObject` style).
 */
export function queryParameters(joi: Joi.ObjectSchema): Schema[] {
  const converted = parseJoi(joi as never, 'open-api-3.1') as Schema;
  const required = (converted.required ?? []) as string[];
  return Object.entries((converted.properties ?? {}) as Record<string, Schema>).map(([name, property]) => {
    const { [PARAMETER]: parameter, ...rest } = property;
    const { description, ...schema } = tidy(rest) as Schema;
    return {
      name,
      in: 'query',
      required: required.includes(name),
      ...(description !== undefined ? { description } : {}),
      schema,
      ...(parameter as Schema | undefined),
    };
  });
}

function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  const node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidy(v)])) as Schema;
  const extra = node[DOCUMENT_ONLY] as Schema | undefined;
  delete node[DOCUMENT_ONLY];
  if (node.additionalProperties === true && node.properties !== undefined) {
    if (Object.keys(node.properties as Schema).length > 0) delete node.additionalProperties;
    else delete node.properties;
  }
  if (extra === undefined) return node;
  if (!('$ref' in extra) && !('type' in extra)) return { ...node, ...extra };
  return { ...(node.description !== undefined ? { description: node.description } : {}), ...extra };
}
