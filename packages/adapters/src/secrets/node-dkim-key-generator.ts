import type { DkimAlgorithm, DkimKeyGenerator, DkimKeyPair } from '@mailcast/core';
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

/** RSA 2048 DKIM keys from node:crypto; the record's `p=` is the SubjectPublicKeyInfo DER. */
export class NodeDkimKeyGenerator implements DkimKeyGenerator {
  async generate(_algorithm: DkimAlgorithm): Promise<DkimKeyPair> {
    const { privateKey, publicKey } = await generate('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'der' },
    });
    return { privateKeyPem: privateKey, publicKeyBase64: publicKey.toString('base64') };
  }
}
