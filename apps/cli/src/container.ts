import { registerAdapters, type Infrastructure } from '@mailcast/adapters';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';

/** The admin CLI's composition root. */
export function buildContainer(infra: Infrastructure): DependencyContainer {
  return registerAdapters(rootContainer.createChildContainer(), infra);
}
