import { composeContainer, NodemailerMailer, ThreadedMailer, type Infrastructure, type Override } from '@mailcast/adapters';
import { Mailer, SendingOptions } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';
import { sendingConfig, smtpConnections, smtpThreads } from './sending/sending-config';

export type { Override };

/**
 * The dispatcher's composition root: the only place that binds ports to adapters. A test passes
 * overrides that replace single tokens (the clock, say) in a child container.
 */
export function buildContainer(infra: Infrastructure, overrides: readonly Override[] = []): DependencyContainer {
  const container = composeContainer(infra);
  container.registerInstance(SendingOptions, sendingConfig(infra.config.publicUrl));
  const threads = smtpThreads();
  const connections = smtpConnections();
  container.registerInstance(
    Mailer,
    threads === 0
      ? new NodemailerMailer(connections)
      : new ThreadedMailer({ threads, connectionsPerServer: connections }),
  );
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
