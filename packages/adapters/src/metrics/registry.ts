import { collectDefaultMetrics, Registry } from 'prom-client';

/** One registry per process, labelled with the service so api and dispatcher series differ. */
export function createMetricsRegistry(service: 'api' | 'dispatcher'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, prefix: 'mailcast_' });
  return registry;
}

export type { Registry };
