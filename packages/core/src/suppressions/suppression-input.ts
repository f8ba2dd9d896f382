import { canonicalEmail, SUPPRESSION_BULK_LIMIT, type SuppressionScope } from '@mailcast/domain';
import { GLOBAL_SUPPRESSIONS_ADMIN_ONLY, requireAdmin, type Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import type { SuppressionList } from '../ports';

/**
 * The list a request works on: the caller's channel's, or the installation-wide one, which only
 * an admin token reads or changes (docs/suppressions.md): one channel must not change, or read,
 * what every other channel may send.
 */
export function suppressionList(principal: Principal, scope: SuppressionScope): SuppressionList {
  if (scope === 'channel') return principal.channelId;
  requireAdmin(principal, GLOBAL_SUPPRESSIONS_ADMIN_ONLY);
  return null;
}

/** One address, normalised; a malformed one is a 422 on `email`. */
export function suppressionEmail(raw: string): string {
  const email = canonicalEmail(raw);
  if (email === null) throw ValidationError.forFields({ email: ['is invalid'] });
  return email;
}

/** A bulk request's addresses: valid ones normalised and de-duplicated, the others as sent. */
export function splitBulkEmails(raw: readonly string[]): { valid: string[]; invalid: string[] } {
  if (raw.length > SUPPRESSION_BULK_LIMIT) {
    throw ValidationError.forFields({ emails: [`has too many entries (maximum is ${SUPPRESSION_BULK_LIMIT})`] });
  }
  const valid = new Set<string>();
  const invalid: string[] = [];
  for (const entry of raw) {
    const email = canonicalEmail(entry);
    if (email !== null) valid.add(email);
    else invalid.push(entry);
  }
  return { valid: [...valid], invalid };
}
