import {
  composeContainer,
  NodemailerMailer,
  smtpAddressOptions,
  ThreadedBroadcastRendering,
  ThreadedMailer,
  ThreadedWebhookSender,
  type Infrastructure,
  type Override,
} from '@mailcast/adapters';
import { BroadcastRendering, Mailer, PriorityMailer, RetentionPolicy, SendingOptions, SequenceRendering, WebhookSender } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';
import { loadDispatcherConfig, type DispatcherConfig } from './config';

export type { Override };

const TRANSACTIONAL_CONNECTIONS = 2;

/** What the running process adds to its configuration: its name in claims and its stop signal. */
export interface DispatcherProcess {
  config?: DispatcherConfig;
  workerName?: string;
  stopRequested?: () => boolean;
}

/**
 * The dispatcher's composition root: binds the ports only it uses (the mailer, the sending
 * options and broadcast rendering on threads), each once, on top of the shared adapters. A test passes overrides that replace
 * single tokens (the clock, say).
 */
export function buildContainer(
  infra: Infrastructure,
  overrides: readonly Override[] = [],
  { config = loadDispatcherConfig(infra.config.publicUrl), workerName, stopRequested }: DispatcherProcess = {},
): DependencyContainer {
  const container = composeContainer(infra);
  const sending: SendingOptions = {
    ...config.sending,
    ...(workerName !== undefined ? { workerName } : {}),
    ...(stopRequested !== undefined ? { stopRequested } : {}),
  };
  container.registerInstance(SendingOptions, sending);
  container.registerInstance(RetentionPolicy, config.retention.policy);
  const { threads, connectionsPerServer } = config.smtp;
  // Every SMTP connection is pinned and checked by the address policy (docs/email-servers.md).
  const addresses = smtpAddressOptions(infra.config);
  container.registerInstance(
    Mailer,
    threads === 0 ? new NodemailerMailer(addresses, connectionsPerServer) : new ThreadedMailer({ threads, connectionsPerServer, addresses }),
  );
  // Transactional email keeps connections of its own, ahead of broadcast traffic
  // (docs/transactionals.md); two per server, on the main thread.
  container.registerInstance(PriorityMailer, new NodemailerMailer(addresses, TRANSACTIONAL_CONNECTIONS));
  // Off the event loop that webhooks, leases and SMTP share (docs/security.md "HTML").
  const rendering = new ThreadedBroadcastRendering(config.render);
  container.registerInstance(BroadcastRendering, rendering);
  // Sequence emails on the same threads (docs/sequences.md, "Rendering").
  container.registerInstance(SequenceRendering, rendering);
  // Webhook POSTs on a thread of their own, started with the first one (docs/webhooks.md,
  // "Delivery thread").
  container.registerInstance(
    WebhookSender,
    new ThreadedWebhookSender({ timeoutMs: infra.config.webhookTimeoutMs, allowPrivate: infra.config.webhookAllowPrivate }),
  );
  for (const { token, value } of overrides) container.registerInstance(token, value);
  return container;
}
