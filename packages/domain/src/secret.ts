import { DomainError } from './errors';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * docs/webhooks.md: `whsec_` + standard Base64 of 32 random bytes. The bytes come in as an
 * argument (the domain draws no randomness); anything but exactly 32 is refused so a short
 * buffer can never weaken a secret.
 */
export function generateWebhookSecret(random32: Uint8Array): string {
  if (!(random32 instanceof Uint8Array) || random32.length !== 32) {
    throw new DomainError('invalid_secret_entropy', 'A webhook secret needs exactly 32 random bytes');
  }
  return WEBHOOK_SECRET_PREFIX + Buffer.from(random32).toString('base64');
}

/**
 * Spec "Webhook endpoint": the secret shown outside the creation response. `whsec_`, then
 * max(length − 6 − 4, 4) `*`, then the last four characters: for a generated secret (6 + 44
 * characters) the mask keeps the secret's length, and there are never fewer than 4 stars.
 * A secret without the prefix gets the same count of stars and its last four characters.
 * When the part after the prefix is shorter than 8 characters, showing four would give away
 * half of it or more, so it is masked entirely.
 */
export function redactSecret(secret: string): string {
  const prefix = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? WEBHOOK_SECRET_PREFIX : '';
  const rest = secret.slice(prefix.length);
  const stars = '*'.repeat(Math.max(secret.length - 6 - 4, 4));
  const tail = rest.length >= 8 ? rest.slice(-4) : '';
  return prefix + stars + tail;
}
