import { DatabaseToken, resealSecrets, SecretBoxToken, type Database, type SecretBox } from '@mailcast/adapters';
import type { Command } from './command';

/**
 * Seals every secret under MAILCAST_SECRET_KEY: plaintext left from before encryption at rest,
 * and values sealed under a key now listed in MAILCAST_SECRET_KEYS_PREVIOUS (docs/secrets.md).
 */
export const secretsReencrypt: Command = {
  usage: 'secrets reencrypt',
  flags: {},
  async run(container) {
    const box = container.resolve<SecretBox>(SecretBoxToken);
    const result = await resealSecrets(container.resolve<Database>(DatabaseToken), box, 'all');
    return {
      json: { key_id: box.currentKeyId, ...result },
      human: `secrets under key ${box.currentKeyId}: ${result.reencrypted} re-encrypted, ${result.sealed} sealed from plaintext`,
    };
  },
};
