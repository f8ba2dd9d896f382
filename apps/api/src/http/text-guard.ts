import { ValidationError } from '@mailcast/core';
import type { RequestHandler } from 'express';

// PostgreSQL text and jsonb cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form
// (the driver would store U+FFFD instead). Either would be changed on the way in, so such input
// is refused whole rather than stored differently from what was sent.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first place in `value` (a parsed body or query) holding unstorable text, or null. */
export function unstorableTextAt(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const here = Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
    if (UNSTORABLE.test(key)) return here;
    const found = unstorableTextAt(inner, here);
    if (found !== null) return found;
  }
  return null;
}

/**
 * How deeply a JSON body may nest (docs/security.md "Request bodies"). Deeper input is refused
 * before anything walks it recursively (validation, this guard, the jsonb encoder), where it
 * would overflow the stack.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests objects or arrays more than `max` levels deep; iterative, so any depth is safe. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const inner of Object.values(item)) if (inner !== null && typeof inner === 'object') stack.push([inner, depth + 1]);
  }
  return false;
}

/**
 * 422 for a body nested deeper than MAX_JSON_DEPTH, or a body or query holding NUL characters or
 * broken Unicode, before any use case runs.
 */
export const rejectUnstorableText: RequestHandler = (req, _res, next) => {
  if (nestedDeeperThan(req.body as unknown, MAX_JSON_DEPTH) || nestedDeeperThan(req.query, MAX_JSON_DEPTH)) {
    next(new ValidationError(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`));
    return;
  }
  const where = unstorableTextAt(req.query) ?? unstorableTextAt(req.body as unknown);
  if (where !== null) {
    next(new ValidationError(`${where || 'Input'} contains a NUL character or invalid Unicode`));
    return;
  }
  next();
};
