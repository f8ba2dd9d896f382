import type { NewPasswordReset, PasswordResetStore } from '@mailcast/core';
import type { Knex } from 'knex';

/** The `password_resets` table (docs/teams.md, Password resets): the token's SHA-256 only. */
export class PgPasswordResetStore implements PasswordResetStore {
  constructor(private readonly db: Knex) {}

  async create(reset: NewPasswordReset): Promise<void> {
    await this.db('password_resets').insert({ user_id: reset.userId, token_hash: reset.tokenHash, expires_at: reset.expiresAt });
  }
}
