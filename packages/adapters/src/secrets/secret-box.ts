import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * What a sealed value is for. It is bound into the ciphertext as associated data, so a value
 * copied from one column into another does not open (docs/secrets.md).
 */
export type SecretPurpose =
  | 'email_servers.password'
  | 'email_servers.dkim_private_key'
  | 'webhook_endpoints.secret'
  | 'broadcasts.tracking_secret'
  | 'transactionals.unsubscribe_secret'
  | 'sequences.unsubscribe_secret'
  | 'users.totp_secret'
  | 'oidc.flow';

/** The envelope's version tag; a value without it is legacy plaintext. */
const PREFIX = 'mcs1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRET_KEY_BYTES = 32;

const ENVELOPE = /^mcs1\.([0-9a-f]{16})\.([A-Za-z0-9_-]+)$/;

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

/** A base64 key as its bytes, or null when it is not the base64 of exactly 32 bytes. */
export function decodeSecretKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) return null;
  const key = Buffer.from(trimmed, 'base64');
  return key.length === SECRET_KEY_BYTES && key.toString('base64') === trimmed ? key : null;
}

/** A key's id: the first 8 bytes of its SHA-256, so ids need no configuration of their own. */
export function secretKeyId(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/**
 * AES-256-GCM envelopes for secrets at rest: `mcs1.<key id>.<base64url(iv | ciphertext | tag)>`.
 * New values are sealed with the current key; values sealed under a previous key still open,
 * until `admin secrets reencrypt` moves them to the current one.
 */
export class SecretBox {
  readonly currentKeyId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Uint8Array, previous: readonly Uint8Array[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== SECRET_KEY_BYTES) throw new SecretKeyError(`a secret key must be ${SECRET_KEY_BYTES} bytes`);
      this.keys.set(secretKeyId(key), Buffer.from(key));
    }
    this.currentKeyId = secretKeyId(current);
  }

  seal(purpose: SecretPurpose, plaintext: string | Uint8Array): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext), cipher.final()]);
    return `${PREFIX}.${this.currentKeyId}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The plaintext bytes of a sealed value. Throws when its key is not configured or it was tampered with. */
  open(purpose: SecretPurpose, stored: string): Buffer {
    const match = ENVELOPE.exec(stored);
    if (match === null) throw new SecretKeyError(`a stored ${purpose} is not a sealed value`);
    const keyId = match[1]!;
    const key = this.keys.get(keyId);
    if (key === undefined) {
      throw new SecretKeyError(`a stored ${purpose} is sealed with key ${keyId}, which is neither MAILCAST_SECRET_KEY nor in MAILCAST_SECRET_KEYS_PREVIOUS`);
    }
    const raw = Buffer.from(match[2]!, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretKeyError(`a stored ${purpose} is truncated`);
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new SecretKeyError(`a stored ${purpose} does not authenticate under key ${keyId}`);
    }
  }

  /**
   * A stored text secret as its plaintext. A value written before encryption at rest existed
   * is returned as it is, so nothing breaks before the start-up pass has sealed it.
   */
  openText(purpose: SecretPurpose, stored: string): string {
    return isSealed(stored) ? this.open(purpose, stored).toString('utf8') : stored;
  }

  isCurrent(stored: string): boolean {
    return ENVELOPE.exec(stored)?.[1] === this.currentKeyId;
  }
}

export function isSealed(stored: string): boolean {
  return ENVELOPE.test(stored);
}

/** `openText` for a nullable column. */
export function openNullable(box: SecretBox, purpose: SecretPurpose, stored: string | null): string | null {
  return stored === null ? null : box.openText(purpose, stored);
}
