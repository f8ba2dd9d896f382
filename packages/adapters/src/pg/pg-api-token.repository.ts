import type { ApiTokenDetails, ApiTokenRecord, ApiTokenRepository } from '@mailcast/core';
import { isPermission, type ApiTokenType, type Permission } from '@mailcast/domain';
import type { Knex } from 'knex';
import { NotificationListener, type NotificationListenerOptions } from './notification-listener';

/** The PostgreSQL channel a revocation is announced on, at its commit (NOTIFY is transactional). */
export const API_TOKEN_REVOKED_CHANNEL = 'mailcast_api_token_revoked';

interface ApiTokenRow {
  id: number;
  channel_id: number | null;
  type: ApiTokenType;
  label: string | null;
  token_hash: Buffer;
  token_prefix: string;
  token_suffix: string | null;
  permissions: string[];
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** last_used_at is written at most this often per token (docs/discovery.md). */
export const TOKEN_USE_RESOLUTION_MS = 60_000;

const toRecord = (row: Pick<ApiTokenRow, 'id' | 'channel_id' | 'type' | 'label' | 'permissions' | 'revoked_at'>): ApiTokenRecord => ({
  id: row.id,
  channelId: row.channel_id,
  type: row.type,
  label: row.label,
  permissions: row.permissions.filter(isPermission),
  revokedAt: row.revoked_at,
});

export class PgApiTokenRepository implements ApiTokenRepository {
  constructor(private readonly db: Knex) {}

  async create(token: {
    channelId: number | null;
    type: ApiTokenType;
    label: string | null;
    hash: Uint8Array;
    prefix: string;
    suffix: string;
    permissions: Permission[];
  }): Promise<ApiTokenRecord> {
    const [row] = await this.db<ApiTokenRow>('api_tokens')
      .insert({
        channel_id: token.channelId,
        type: token.type,
        label: token.label,
        token_hash: Buffer.from(token.hash),
        token_prefix: token.prefix,
        token_suffix: token.suffix,
        permissions: token.permissions,
      })
      .returning(['id', 'channel_id', 'type', 'label', 'token_hash', 'permissions', 'revoked_at']);
    return toRecord(row as ApiTokenRow);
  }

  async findByHash(hash: Uint8Array): Promise<(ApiTokenRecord & { hash: Uint8Array }) | null> {
    const row = await this.db<ApiTokenRow>('api_tokens')
      .select('id', 'channel_id', 'type', 'label', 'token_hash', 'permissions', 'revoked_at')
      .where({ token_hash: Buffer.from(hash) })
      .first();
    return row ? { ...toRecord(row), hash: row.token_hash } : null;
  }

  async findById(id: number): Promise<ApiTokenDetails | null> {
    const row = await this.db<ApiTokenRow>('api_tokens')
      .select('id', 'channel_id', 'type', 'label', 'token_prefix', 'token_suffix', 'permissions', 'revoked_at', 'last_used_at')
      .where({ id })
      .first();
    return row ? { ...toRecord(row), prefix: row.token_prefix, suffix: row.token_suffix, lastUsedAt: row.last_used_at } : null;
  }

  /**
   * One statement that writes only when the stored use is a minute old or more: a row that
   * already says "just now" is left alone (no new row version, no WAL), whoever else wrote it.
   */
  async markUsed(id: number, at: Date): Promise<void> {
    await this.db('api_tokens')
      .where({ id })
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<=', new Date(at.getTime() - TOKEN_USE_RESOLUTION_MS)))
      .update({ last_used_at: at });
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const rows = await this.db('api_tokens')
      .where({ id })
      .update({ revoked_at: this.db.raw('coalesce(revoked_at, ?)', [at]) })
      .returning('id');
    if (rows.length === 0) return false;
    // Inside the revoking transaction: listeners hear it when (and only if) it commits.
    await this.db.raw('SELECT pg_notify(?, ?)', [API_TOKEN_REVOKED_CHANNEL, String(id)]);
    return true;
  }
}

export interface ApiTokenCacheOptions extends NotificationListenerOptions {
  /**
   * How long a verified token is trusted without a lookup. Revocations through Mailcast are
   * announced and applied at once; this bounds a change nobody announced (a row edited by hand).
   */
  ttlMs: number;
  maxEntries: number;
  /** Milliseconds for the TTL (the api passes its Clock, so a test can move past it). */
  now?: () => number;
}

/**
 * Verified tokens kept in memory, so an authenticated request does not pay a database round
 * trip for its token. Only tokens found valid are kept (an unknown token is looked up every
 * time and fills nothing). The cache is used only while this process LISTENs for revocations
 * on a connection of its own: every announced revocation empties it, and a lookup that was in
 * flight when one arrived is not stored. Without that connection (not yet open, lost) every
 * request looks its token up as before.
 */
export class CachedApiTokenRepository implements ApiTokenRepository {
  private readonly entries = new Map<string, { record: ApiTokenRecord & { hash: Uint8Array }; expiresAt: number }>();
  /** Token id → when this process last wrote its use. */
  private readonly usesMarked = new Map<number, number>();
  /** Bumped whenever the cache is emptied, so a lookup started before cannot store a stale answer. */
  private generation = 0;
  private readonly listener: NotificationListener;
  private readonly now: () => number;

  constructor(
    private readonly inner: ApiTokenRepository,
    private readonly db: Knex,
    private readonly options: ApiTokenCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.listener = new NotificationListener(db, API_TOKEN_REVOKED_CHANNEL, () => this.invalidate(), options);
  }

  create(token: Parameters<ApiTokenRepository['create']>[0]): Promise<ApiTokenRecord> {
    return this.inner.create(token);
  }

  findById(id: number): Promise<ApiTokenDetails | null> {
    return this.inner.findById(id);
  }

  /**
   * Past the first use, a token's use is written at most once a minute by this process: the
   * request path of a busy token pays no round trip for it (docs/discovery.md, last_used_at).
   */
  async markUsed(id: number, at: Date): Promise<void> {
    const last = this.usesMarked.get(id);
    if (last !== undefined && at.getTime() - last < TOKEN_USE_RESOLUTION_MS && at.getTime() >= last) return;
    this.usesMarked.delete(id);
    if (this.usesMarked.size >= this.options.maxEntries) this.usesMarked.delete(this.usesMarked.keys().next().value!);
    this.usesMarked.set(id, at.getTime());
    await this.inner.markUsed(id, at);
  }

  async revoke(id: number, at: Date): Promise<boolean> {
    const revoked = await this.inner.revoke(id, at);
    this.invalidate();
    return revoked;
  }

  async findByHash(hash: Uint8Array): Promise<(ApiTokenRecord & { hash: Uint8Array }) | null> {
    this.listener.ensure();
    const key = Buffer.from(hash).toString('base64');
    const cached = this.entries.get(key);
    if (cached !== undefined && this.listener.active && cached.expiresAt > this.now()) return cached.record;
    const generation = this.generation;
    const record = await this.inner.findByHash(hash);
    if (record !== null && record.revokedAt === null && this.listener.active && generation === this.generation) {
      this.entries.delete(key);
      if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { record, expiresAt: this.now() + this.options.ttlMs });
    }
    return record;
  }

  /** Whether verified tokens are being served from memory (the revocation listener is up). */
  get active(): boolean {
    return this.listener.active;
  }

  /** Opens the listener now rather than at the first lookup; resolves once it listens (or failed). */
  start(): Promise<void> {
    return this.listener.start();
  }

  close(): Promise<void> {
    return this.listener.close();
  }

  private invalidate(): void {
    this.generation++;
    this.entries.clear();
  }
}
