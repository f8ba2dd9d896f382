import type { SuppressionReason, SuppressionScope } from '@mailcast/domain';
import type { Page } from './entities/page';
import type { Suppression, SuppressionList } from './entities/suppression';

/** The suppression lists (docs/suppressions.md). */
export interface SuppressionRepository {
  /** Upsert on (email, list): `created` false when the address was already there (kept as it was). */
  add(list: SuppressionList, email: string, reason: SuppressionReason, now: Date): Promise<{ suppression: Suppression; created: boolean }>;
  /** Many addresses in one statement; returns how many were new. */
  addMany(list: SuppressionList, emails: readonly string[], reason: SuppressionReason, now: Date): Promise<number>;
  remove(list: SuppressionList, email: string): Promise<boolean>;
  /** Returns how many were removed. */
  removeMany(list: SuppressionList, emails: readonly string[]): Promise<number>;
  /** Newest first; `emailContains` is a partial, case-insensitive match. */
  list(list: SuppressionList, filter: { emailContains?: string }, page: Page): Promise<{ items: Suppression[]; total: number }>;
  /** The entry that stops email from the channel to the address: the channel's first, then the global one. */
  find(channelId: number, email: string): Promise<(Suppression & { scope: SuppressionScope }) | null>;
}
