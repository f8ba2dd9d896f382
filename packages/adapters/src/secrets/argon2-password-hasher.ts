import type { PasswordHasher } from '@mailcast/core';
import argon2 from 'argon2';

/** argon2id with the library's defaults (64 MiB, 3 passes, 4 lanes): docs/teams.md, Passwords. */
const OPTIONS = { type: argon2.argon2id } as const;

export class Argon2PasswordHasher implements PasswordHasher {
  /** A hash of nothing, made once: what an unknown account's password is checked against (sign-in). */
  private dummy: Promise<string> | undefined;

  hash(password: string): Promise<string> {
    return argon2.hash(password, OPTIONS);
  }

  async verify(hash: string | null, password: string): Promise<boolean> {
    // Made on the first check of any kind, so the first unknown address is not the slow one.
    this.dummy ??= argon2.hash('mailcast: no such account', OPTIONS);
    if (hash === null) {
      // The same work as a real check (docs/teams.md, Signing in): the time does not tell.
      await argon2.verify(await this.dummy, password);
      return false;
    }
    try {
      return await argon2.verify(hash, password);
    } catch {
      // A stored value that is not a PHC string (hand-edited) matches nothing.
      return false;
    }
  }
}
