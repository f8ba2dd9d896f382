import type { TwoFactorStore, TwoFactorUser } from '@mailcast/core';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';

const PURPOSE = 'users.totp_secret';

/**
 * Two-factor state in `users`, and `user_recovery_codes` (docs/teams.md,
 * "Two-factor"). The TOTP secret is sealed by the SecretBox; every "used once" rule is one
 * conditional UPDATE, so two requests racing with the same code cannot both pass.
 */
export class PgTwoFactorStore implements TwoFactorStore {
  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
  ) {}

  async find(userId: number): Promise<TwoFactorUser | null> {
    const row = await this.db('users').where({ id: userId }).first('id', 'email', 'totp_secret', 'two_factor_enabled');
    if (row === undefined) return null;
    return {
      id: Number(row.id),
      email: row.email,
      totpSecret: row.totp_secret === null ? null : this.secrets.open(PURPOSE, row.totp_secret).toString('utf8'),
      twoFactorEnabled: row.two_factor_enabled,
    };
  }

  async savePendingSecret(userId: number, secret: string): Promise<boolean> {
    const updated = await this.db('users')
      .where({ id: userId, two_factor_enabled: false })
      .update({ totp_secret: this.secrets.seal(PURPOSE, secret), totp_last_step: null, updated_at: this.db.fn.now() });
    return updated === 1;
  }

  async enable(userId: number, step: number, recoveryCodeHashes: readonly Buffer[]): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const updated = await trx('users')
        .where({ id: userId, two_factor_enabled: false })
        .whereNotNull('totp_secret')
        .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
        .update({ two_factor_enabled: true, totp_last_step: step, updated_at: trx.fn.now() });
      if (updated !== 1) return false;
      await trx('user_recovery_codes').where({ user_id: userId }).delete();
      await trx('user_recovery_codes').insert(recoveryCodeHashes.map((code_hash) => ({ user_id: userId, code_hash })));
      return true;
    });
  }

  async acceptStep(userId: number, step: number): Promise<boolean> {
    // Strictly later than the last accepted step: a code is never taken twice, nor an older
    // code of the ±1 window once a newer one was (RFC 6238 §5.2).
    const updated = await this.db('users')
      .where({ id: userId, two_factor_enabled: true })
      .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return updated === 1;
  }

  async useRecoveryCode(userId: number, codeHash: Buffer): Promise<boolean> {
    const updated = await this.db('user_recovery_codes')
      .where({ user_id: userId, code_hash: codeHash })
      .whereNull('used_at')
      .update({ used_at: this.db.fn.now() });
    return updated >= 1;
  }

  async disable(userId: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('users').where({ id: userId }).update({ two_factor_enabled: false, totp_secret: null, totp_last_step: null, updated_at: trx.fn.now() });
      await trx('user_recovery_codes').where({ user_id: userId }).delete();
    });
  }
}
