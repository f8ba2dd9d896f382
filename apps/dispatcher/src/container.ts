import { registerAdapters, type Infrastructure } from '@mailcast/adapters';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';

export interface Override<T = unknown> {
  token: InjectionToken<T>;
  value: T;
}

/** The dispatcher's composition root; tests replace single tokens (the clock) through overrides. */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  const container = registerAdapters(rootContainer.createChildContainer(), infra);
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
