import type { RandomSource } from '@mailcast/core';
import { randomBytes } from 'node:crypto';

export class CryptoRandom implements RandomSource {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }
}
