import type { Knex } from 'knex';
import { isSealed, type SecretBox, type SecretPurpose } from './secret-box';

/**
 * Every column that holds a secret; `bytes`: legacy plaintext is the base64 of raw bytes;
 * `sealedFromStart`: never held plaintext, so the start-up pass need not scan it (a large table).
 */
const SEALED_COLUMNS: ReadonlyArray<{ table: string; column: string; purpose: SecretPurpose; bytes?: true; sealedFromStart?: true }> = [
  { table: 'email_servers', column: 'password', purpose: 'email_servers.password' },
  { table: 'email_servers', column: 'dkim_private_key', purpose: 'email_servers.dkim_private_key' },
  { table: 'webhook_endpoints', column: 'secret', purpose: 'webhook_endpoints.secret' },
  { table: 'broadcasts', column: 'tracking_secret', purpose: 'broadcasts.tracking_secret', bytes: true },
  { table: 'transactionals', column: 'unsubscribe_secret', purpose: 'transactionals.unsubscribe_secret', bytes: true, sealedFromStart: true },
  { table: 'sequences', column: 'unsubscribe_secret', purpose: 'sequences.unsubscribe_secret', bytes: true, sealedFromStart: true },
  { table: 'users', column: 'totp_secret', purpose: 'users.totp_secret', sealedFromStart: true },
];

const BATCH = 500;

export interface ResealResult {
  /** Plaintext values from before encryption at rest, now sealed. */
  sealed: number;
  /** Values sealed under a previous key, now under the current one. */
  reencrypted: number;
}

/**
 * Seals what is still plaintext (`scope: 'plaintext'`, run by every api and dispatcher at
 * start-up) or also re-encrypts what an older key sealed (`scope: 'all'`, the admin command).
 * Each row is written only if it still holds the value read, so processes doing this at once,
 * or a concurrent edit, never lose a value.
 */
export async function resealSecrets(db: Knex, box: SecretBox, scope: 'plaintext' | 'all'): Promise<ResealResult> {
  const result: ResealResult = { sealed: 0, reencrypted: 0 };
  for (const { table, column, purpose, bytes, sealedFromStart } of SEALED_COLUMNS) {
    if (scope === 'plaintext' && sealedFromStart) continue;
    let after = 0;
    for (;;) {
      const pending = db(table).whereNotNull(column).where('id', '>', after);
      const rows = (await (scope === 'plaintext' ? pending.whereNot(column, 'like', 'mcs1.%') : pending.whereNot(column, 'like', `mcs1.${box.currentKeyId}.%`))
        .orderBy('id')
        .limit(BATCH)
        .select('id', column)) as Array<Record<string, string> & { id: number }>;
      if (rows.length === 0) break;
      for (const row of rows) {
        const stored = row[column]!;
        const legacy = !isSealed(stored);
        const plaintext = legacy ? (bytes ? Buffer.from(stored, 'base64') : stored) : box.open(purpose, stored);
        const written = await db(table)
          .where({ id: row.id, [column]: stored })
          .update({ [column]: box.seal(purpose, plaintext) });
        if (written > 0) result[legacy ? 'sealed' : 'reencrypted'] += 1;
      }
      after = Number(rows[rows.length - 1]!.id);
    }
  }
  return result;
}
