import type { UserIdentities } from '@mailcast/core';
import type { Knex } from 'knex';

/** A signed-in user's id and address, for whoami (docs/discovery.md, "A signed-in user"). */
export class PgUserIdentities implements UserIdentities {
  constructor(private readonly db: Knex) {}

  async findIdentity(userId: number): Promise<{ id: number; email: string } | null> {
    const row = (await this.db('users').select('id', 'email').where({ id: userId }).first()) as { id: string | number; email: string } | undefined;
    return row ? { id: Number(row.id), email: row.email } : null;
  }
}
