/**
 * docs/teams.md, Passwords: at least 12 characters (counted as code points), at most 1,000 so
 * hashing stays bounded. Nothing else is demanded: length is what makes a password strong.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1_000;

/** Why a password is refused, or null when it is fine. */
export function passwordProblem(password: string): string | null {
  const length = Array.from(password).length;
  if (length < MIN_PASSWORD_LENGTH) return `Password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`;
  if (length > MAX_PASSWORD_LENGTH) return `Password is too long (maximum is ${MAX_PASSWORD_LENGTH} characters)`;
  return null;
}
