import {
  CachedApiTokenRepository,
  CachedOptInFormRepository,
  composeContainer,
  DatabaseToken,
  LoggerToken,
  type Database,
  type Infrastructure,
  type Logger,
  type Override,
} from '@mailcast/adapters';
import { Clock, OptInFormRepository, Templates } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

export type { Override };

/**
 * How long the api trusts a verified token without looking it up again, when no revocation
 * was announced (docs/auth.md, Verifying a token): the bound for a row changed by hand.
 */
export const TOKEN_CACHE_TTL_MS = 30_000;
const TOKEN_CACHE_MAX_ENTRIES = 10_000;
/** Forms kept in memory for the public routes (docs/opt-in-forms.md, "The form in memory"). */
const FORM_CACHE_MAX_ENTRIES = 1_000;

/**
 * The api's composition root: the shared adapters, with the repositories' tokens behind the
 * api's cache, each port bound once. A test passes overrides that replace single tokens (the
 * clock, say) in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  // Every request resolves its token: the api keeps verified ones in memory while it hears
  // revocations (CachedApiTokenRepository). Only the api: the other processes do not authenticate.
  // The clock and logger are looked up when used, so a test's overrides apply to them.
  let tokens: CachedApiTokenRepository | undefined;
  const container = composeContainer(infra, overrides, {
    repositories: (base, bound) => {
      tokens = new CachedApiTokenRepository(base.apiTokens, bound.resolve<Database>(DatabaseToken), {
        ttlMs: TOKEN_CACHE_TTL_MS,
        maxEntries: TOKEN_CACHE_MAX_ENTRIES,
        now: () => bound.resolve<Clock>(Clock).now().getTime(),
        onError: (error) =>
          bound.resolve<Logger>(LoggerToken).warn('token revocation listener unavailable; looking tokens up on every request', {
            error: error.message,
          }),
      });
      return { ...base, apiTokens: tokens };
    },
  });
  container.registerInstance(CachedApiTokenRepository, tokens!);
  // The public forms routes read forms by identifier on every view and submission: from memory while changes are heard.
  const forms = new CachedOptInFormRepository(container.resolve<OptInFormRepository>(OptInFormRepository), container.resolve<Database>(DatabaseToken), {
    maxEntries: FORM_CACHE_MAX_ENTRIES,
    onError: (error) =>
      container.resolve<Logger>(LoggerToken).warn('form change listener unavailable; reading forms on every request', { error: error.message }),
  });
  container.registerInstance(OptInFormRepository, forms);
  container.registerInstance(CachedOptInFormRepository, forms);
  return container;
}

/** Releases what the api's container opened itself: the revocation and form-change listeners' connections, the templates threads. */
export async function closeContainer(container: DependencyContainer): Promise<void> {
  await Promise.all([
    container.resolve(CachedApiTokenRepository).close(),
    container.resolve(CachedOptInFormRepository).close(),
    container.resolve<Templates>(Templates).close(),
  ]);
}
