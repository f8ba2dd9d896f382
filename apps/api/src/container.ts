import { CachedApiTokenRepository, composeContainer, DatabaseToken, LoggerToken, type Database, type Infrastructure, type Logger, type Override } from '@mailcast/adapters';
import { Clock, Repositories } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

export type { Override };

/**
 * How long the api trusts a verified token without looking it up again, when no revocation
 * was announced (docs/auth.md, Verifying a token): the bound for a row changed by hand.
 */
export const TOKEN_CACHE_TTL_MS = 30_000;
const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * The api's composition root: the only place that binds ports to adapters. A test passes
 * overrides that replace single tokens (the clock, say) in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  const container = composeContainer(infra, overrides);
  // Every request resolves its token: the api keeps verified ones in memory while it hears
  // revocations (CachedApiTokenRepository). Only the api: the other processes do not authenticate.
  const repositories = container.resolve<Repositories>(Repositories);
  const logger = container.resolve<Logger>(LoggerToken);
  const clock = container.resolve<Clock>(Clock);
  const tokens = new CachedApiTokenRepository(repositories.apiTokens, container.resolve<Database>(DatabaseToken), {
    ttlMs: TOKEN_CACHE_TTL_MS,
    maxEntries: TOKEN_CACHE_MAX_ENTRIES,
    now: () => clock.now().getTime(),
    onError: (error) => logger.warn('token revocation listener unavailable; looking tokens up on every request', { error: error.message }),
  });
  container.registerInstance(Repositories, { ...repositories, apiTokens: tokens });
  container.registerInstance(CachedApiTokenRepository, tokens);
  return container;
}

/** Releases what the api's container opened itself (the revocation listener's connection). */
export async function closeContainer(container: DependencyContainer): Promise<void> {
  await container.resolve(CachedApiTokenRepository).close();
}
