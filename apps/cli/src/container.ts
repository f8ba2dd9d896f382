import { composeContainer, type Infrastructure } from '@mailcast/adapters';
import type { DependencyContainer } from 'tsyringe';

/** The admin CLI's composition root. */
export function buildContainer(infra: Infrastructure): DependencyContainer {
  return composeContainer(infra);
}
