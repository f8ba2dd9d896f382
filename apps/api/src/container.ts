import { composeContainer, type Infrastructure, type Override } from '@mailcast/adapters';
import type { DependencyContainer } from 'tsyringe';

export type { Override };

/**
 * The api's composition root: the only place that binds ports to adapters. A test passes
 * overrides that replace single tokens (the clock, say) in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  return composeContainer(infra, overrides);
}
