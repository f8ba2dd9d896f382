import type Joi from 'joi';

/**
 * Attributes a create or update carried that the API does not take (docs/discovery.md, Warnings): the
 * request still succeeds, and the answer says what was ignored instead of dropping it silently.
 */
export interface Warning {
  code: 'unrecognized_parameter' | 'already_enrolled' | 'parameter_ignored' | 'parameter_overridden' | 'double_opt_in_skipped';
  param: string;
  message: string;
}

export interface BodyShape {
  /** The key a body may nest the resource's fields under (`broadcast`), as in the spec. */
  key: string;
  /** The resource's writable attributes. */
  fields: readonly string[];
  /** Parameters taken beside the resource (`double_opt_in`), at the top level only. */
  options?: readonly string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The keys a joi object schema describes: the routes' own list of what they accept. */
export function keysOf(schema: Joi.ObjectSchema): string[] {
  return Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
}

const warning = (param: string, resource: string): Warning => ({
  code: 'unrecognized_parameter',
  param,
  message: `${param} is not a parameter of ${resource} the API accepts; it was ignored`,
});

/** One warning per attribute the body carries that `shape` does not name, in the body's order. */
export function unrecognizedParameters(body: unknown, shape: BodyShape): Warning[] {
  if (!isObject(body)) return [];
  const resource = `a ${shape.key.replace(/_/g, ' ')}`;
  const fields = new Set(shape.fields);
  const options = new Set(shape.options ?? []);
  const nested = body[shape.key];
  if (isObject(nested)) {
    return [...Object.keys(nested).filter((k) => !fields.has(k)), ...Object.keys(body).filter((k) => k !== shape.key && !options.has(k))].map((param) =>
      warning(param, resource),
    );
  }
  return Object.keys(body)
    .filter((k) => !fields.has(k) && !options.has(k))
    .map((param) => warning(param, resource));
}

/** A parameter the request carried that could not be honoured here (the `parameter_ignored` warning, docs/subscribers.md, List). */
export function parameterIgnored(param: string, message: string): Warning {
  return { code: 'parameter_ignored', param, message };
}

/** The answer with `warnings` beside the resource's attributes, when there are any. */
export function withWarnings<T extends object>(answer: T, warnings: readonly Warning[]): T & { warnings?: Warning[] } {
  return warnings.length === 0 ? answer : { ...answer, warnings: [...warnings] };
}

/** A value the request set that a rule changed (a write flag turning its read on, docs/teams.md). */
export function parameterOverridden(param: string, message: string): Warning {
  return { code: 'parameter_overridden', param, message };
}
