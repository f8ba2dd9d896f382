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

/** 422 for a body or query holding NUL characters or broken Unicode, before any use case runs. */
export const rejectUnstorableText: RequestHandler = (req, _res, next) => {
  const where = unstorableTextAt(req.query) ?? unstorableTextAt(req.body as unknown);
  if (where !== null) {
    next(new ValidationError(`${where || 'Input'} contains a NUL character or invalid Unicode`));
    return;
  }
  next();
};
