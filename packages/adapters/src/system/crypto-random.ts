import type { RandomSource } from '@mailcast/core';
import { randomFillSync } from 'node:crypto';

/** Bytes drawn from the system's generator at once, then handed out in order. */
const POOL_BYTES = 4096;

/**
 * Cryptographically random bytes from the system's generator. A call into it costs about as much
 * for 1 byte as for 4 KB, and some callers ask for one byte per request (a form sign-up's counter
 * shard), so the bytes are drawn 4 KB at a time and handed out in order, each exactly once, as a
 * copy the caller owns (Node.js does the same for `crypto.randomUUID`). A request larger than the
 * pool goes to the generator directly.
 */
export class CryptoRandom implements RandomSource {
  private readonly pool = new Uint8Array(POOL_BYTES);
  private offset = POOL_BYTES;

  bytes(length: number): Uint8Array {
    if (length > POOL_BYTES) return randomFillSync(new Uint8Array(length));
    if (this.offset + length > POOL_BYTES) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const out = this.pool.slice(this.offset, this.offset + length);
    // Handed out once: the pool's copy is wiped, so nothing later can read what a caller was given.
    this.pool.fill(0, this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}
