/**
 * What discovery answers about the installation and a token (docs/discovery.md).
 */

/** The installation as prime names it; version is the release (kept equal to package.json by a test). */
export const PLATFORM = { name: 'Mailcast', version: '0.1.0' } as const;

/** How many of a token's last characters are kept beside its hash, for redacted_value. */
export const TOKEN_SUFFIX_LENGTH = 4;

const MASK = '•';

/** The last four characters of a token, kept from its creation on (docs/discovery.md, whoami). */
export function apiTokenSuffix(token: string): string {
  return token.slice(-TOKEN_SUFFIX_LENGTH);
}

/**
 * A token as whoami shows it: its first four characters, eight `•`, its last four. A token
 * created before the last four were kept has `•` in their place: only what is known is shown,
 * and never more than eight characters of the token.
 */
export function redactedTokenValue(prefix: string, suffix: string | null): string {
  const last = suffix !== null && suffix.length === TOKEN_SUFFIX_LENGTH ? suffix : MASK.repeat(TOKEN_SUFFIX_LENGTH);
  return prefix.slice(0, 4) + MASK.repeat(8) + last;
}
