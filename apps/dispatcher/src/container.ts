import { composeContainer, NodemailerMailer, type Infrastructure, type Override } from '@mailcast/adapters';
import { Mailer, SendingOptions } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';
import { sendingConfig, smtpConnections } from './sending/sending-config';

export type { Override };

/**
 * The dispatcher's composition root: the only place that binds ports to adapters. A test passes
 * overrides that replace single tokens (the clock, say) in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  const container = composeContainer(infra);
  container.registerInstance(SendingOptions, sendingConfig(infra.config.publicUrl));
  container.registerInstance(Mailer, new NodemailerMailer(smtpConnections()));
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
