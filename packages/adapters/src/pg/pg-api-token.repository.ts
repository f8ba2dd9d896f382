import type { ApiTokenRecord, ApiTokenRepository } from '@mailcast/core';
import { isPermission, type Permission } from '@mailcast/domain';
import type { Knex } from 'knex';

interface ApiTokenRow {
  id: number;
  channel_id: number;
  token_hash: Buffer;
  token_prefix: string;
  permissions: string[];
  revoked_at: Date | null;
}

const toRecord = (row: Omit<ApiTokenRow, 'token_prefix'>): ApiTokenRecord => ({
  id: row.id,
  channelId: row.channel_id,
  permissions: row.permissions.filter(isPermission),
  revokedAt: row.revoked_at,
});

export class PgApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly db: Knex) {}

  async create(token: {
    channelId: number;
    hash: Uint8Array;
    prefix: string;
    permissions: Permission[];
  }): Promise<ApiTokenRecord> {
    const [row] = await this.db<ApiTokenRow>('api_tokens')
      .insert({
        channel_id: token.channelId,
        token_hash: Buffer.from(token.hash),
        token_prefix: token.prefix,
        permissions: token.permissions,
      })
      .returning(['id', 'channel_id', 'token_hash', 'permissions', 'revoked_at']);
    return toRecord(row as ApiTokenRow);
  }

  async findByHash(hash: Uint8Array): Promise<(ApiTokenRecord & { hash: Uint8Array }) | null> {
    const row = await this.db<ApiTokenRow>('api_tokens')
      .select('id', 'channel_id', 'token_hash', 'permissions', 'revoked_at')
      .where({ token_hash: Buffer.from(hash) })
      .first();
    return row ? { ...toRecord(row), hash: row.token_hash } : null;
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const rows = await this.db('api_tokens')
      .where({ id })
      .update({ revoked_at: this.db.raw('coalesce(revoked_at, ?)', [at]) })
      .returning('id');
    return rows.length > 0;
  }
}
