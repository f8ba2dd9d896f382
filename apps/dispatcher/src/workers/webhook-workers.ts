import { ConfigToken, type Config } from '@mailcast/adapters';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { DEFAULT_OUTBOX_RELAY, startOutboxRelay, type OutboxRelayOptions } from './outbox-relay';
import { defaultWebhookDeliveryOptions, WebhookDeliveryWorker, type WebhookDeliveryOptions } from './webhook-delivery-worker';

export interface WebhookWorkersOptions {
  relay?: Partial<Omit<OutboxRelayOptions, 'onError'>>;
  delivery?: Partial<Omit<WebhookDeliveryOptions, 'onError'>>;
  onError?(error: unknown, context: string): void;
}

/**
 * The outbox relay and the delivery worker of one dispatcher, the relay handing first attempts
 * to the worker in memory; stop() drains both.
 */
export function startWebhookWorkers(
  boss: PgBoss,
  container: DependencyContainer,
  options: WebhookWorkersOptions = {},
): { stop(): Promise<void>; wake(): void } {
  const config = container.resolve<Config>(ConfigToken);
  const onError = options.onError ?? (() => undefined);
  const relayOptions = { ...DEFAULT_OUTBOX_RELAY, ...options.relay, onError: (error: unknown) => onError(error, 'outbox relay') };
  const delivery = new WebhookDeliveryWorker(boss, container, {
    ...defaultWebhookDeliveryOptions(config.webhookTimeoutMs),
    leaseMs: relayOptions.leaseMs,
    ...options.delivery,
    onError,
  }).start();
  const relay = startOutboxRelay(container, delivery, relayOptions);
  return {
    /** Events were committed to the outbox (a writer's NOTIFY): the relay claims them now. */
    wake: () => relay.wake(),
    // The relay first: it hands nothing more over, then the worker finishes what it holds.
    async stop() {
      await relay.stop();
      await delivery.stop();
    },
  };
}
