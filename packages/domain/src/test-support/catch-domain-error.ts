import { DomainError } from '../errors';

/** Runs `fn`, which must throw a DomainError, and returns it so a test can assert on code and message. */
export function catchDomainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

/** The fields a test compares, so `toEqual` shows both in a failure. */
export function errorOf(fn: () => unknown): { name: string; code: string; message: string } {
  const e = catchDomainError(fn);
  return { name: e.name, code: e.code, message: e.message };
}
