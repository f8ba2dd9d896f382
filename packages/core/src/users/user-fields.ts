import { canonicalEmail, passwordProblem } from '@mailcast/domain';
import { ValidationError } from '../errors';

export const MAX_NAME_LENGTH = 255;

/** A user's address: one form, as subscribers' (docs/subscribers.md), unique in any case. */
export function userEmail(raw: string): string {
  const email = canonicalEmail(raw);
  if (email === null) throw new ValidationError('Email is invalid');
  return email;
}

export function userName(raw: string | null | undefined, field: string): string | null | undefined {
  if (raw === undefined) return undefined;
  const name = raw === null ? '' : raw.trim();
  if (name.length > MAX_NAME_LENGTH) throw new ValidationError(`${field} is too long (maximum is ${MAX_NAME_LENGTH} characters)`);
  return name === '' ? null : name;
}

export function checkPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem !== null) throw new ValidationError(problem);
  return password;
}
