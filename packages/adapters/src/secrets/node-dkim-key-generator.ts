import type { DkimAlgorithm, DkimKeyGenerator, DkimKeyPair } from '@mailcast/core';
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

/**
 * DKIM keys from node:crypto: RSA 2048 (the record's `p=` is the SubjectPublicKeyInfo DER) or
 * Ed25519 (RFC 8463: `p=` is the bare 32-byte public key).
 */
export class NodeDkimKeyGenerator implements DkimKeyGenerator {
  async generate(algorithm: DkimAlgorithm): Promise<DkimKeyPair> {
    if (algorithm === 'rsa') {
      const { privateKey, publicKey } = await generate('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'der' },
      });
      return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString('base64') };
    }
    const { privateKey, publicKey } = await generate('ed25519', {
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'der' },
    });
    // An Ed25519 SPKI is a fixed 12-byte header and the 32-byte key.
    return { privateKeyPem: privateKey, publicKeyBase64: publicKey.subarray(publicKey.length - 32).toString('base64') };
  }
}
