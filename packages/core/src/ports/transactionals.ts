import type { TransactionalStatus } from '@mailcast/domain';
import type { Page } from './entities/page';
import type { NewTransactional, Transactional, TransactionalEvent, TransactionalFilter, TransactionalSummary } from './entities/transactional';
import type { SubscriberSnapshot } from './recipients';

export interface TransactionalRepository {
  create(transactional: NewTransactional, now: Date): Promise<Transactional>;
  findById(channelId: number, id: number): Promise<Transactional | null>;
  /** The channel's log, newest first, filtered (docs/transactionals.md, "The log"). */
  list(channelId: number, filter: TransactionalFilter, page: Page): Promise<{ items: TransactionalSummary[]; total: number }>;
  /** The `email.*` events still kept (retention) of one of the channel's transactionals, oldest first. */
  events(channelId: number, id: number): Promise<TransactionalEvent[]>;
  /**
   * The dispatcher's claim of attempt `attempt` (1 = first): counts the attempt if the row is
   * still queued with `attempt - 1` made, in one conditional UPDATE, so a duplicate job sends
   * nothing. The first attempt gives the row `messageId`; retries keep it.
   */
  claimForSending(id: number, attempt: number, messageId: string, now: Date): Promise<Transactional | null>;
  /** The subscriber confirmed: their held transactionals become `queued`; answers their ids. */
  releaseAwaiting(subscriberId: number, now: Date): Promise<number[]>;
  /** Unscoped (the public unsubscribe link carries only the id): whom the transactional went to, and its secret. */
  findUnsubscribeTarget(id: number): Promise<{ channelId: number; subscriber: SubscriberSnapshot; secret: Uint8Array | null } | null>;
  settle(id: number, change: { status: TransactionalStatus; messageId?: string; error?: string | null; sentAt?: Date }, now: Date): Promise<void>;
}

/** What a request with an Idempotency-Key finds (docs/transactionals.md). */
export type IdempotencyClaim =
  { kind: 'first' } | { kind: 'replay'; status: number; body: Record<string, unknown> } | { kind: 'in_progress' } | { kind: 'other_body' };

export interface IdempotencyStore {
  /**
   * Claims (token, key) for this body, committed at once so a concurrent retry sees it; a claim
   * older than `expiredBefore` is taken over as if absent.
   */
  claim(tokenId: number, key: string, fingerprint: string, now: Date, expiredBefore: Date): Promise<IdempotencyClaim>;
  /** Stores the answer, in the transaction of the work it answers. */
  complete(tokenId: number, key: string, status: number, body: Record<string, unknown>): Promise<void>;
  /** Gives the key back when the request failed, so a corrected retry may use it. */
  release(tokenId: number, key: string): Promise<void>;
}
