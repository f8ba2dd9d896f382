import { registerAdapters, type Infrastructure } from '@mailcast/adapters';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';

export interface Override<T = unknown> {
  token: InjectionToken<T>;
  value: T;
}

/**
 * The api's composition root: the only place that binds ports to adapters. A test passes
 * overrides (say a fixed Clock) that replace single tokens in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  const container = registerAdapters(rootContainer.createChildContainer(), infra);
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
