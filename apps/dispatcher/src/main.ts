// First: the heap bounds are set before any other module grows the heap.
import { HEAP_FLAGS } from './heap-flags';
import 'reflect-metadata';
import {
  keepHeapFlags,
  createLogger,
  createMetricsRegistry,
  exitOnStartupError,
  listenForJobs,
  readiness,
  loadConfig,
  onShutdown,
  openInfrastructure,
  OUTBOX_WAKE,
  type Logger,
  loadDevkitPackage,
  resolveDatabase,
} from '@mailcast/adapters';
import { BroadcastRendering, Mailer, PriorityMailer, Templates, WebhookSender } from '@mailcast/core';
import type http from 'node:http';
import os from 'node:os';
import { Histogram } from 'prom-client';
import { loadDispatcherConfig } from './config';
import { buildContainer } from './container';
import { HANDLERS } from './handlers';
import { portOf, startHealthServer } from './health-server';
import { startDsnListener } from './inbound/dsn-listener';
import { startWorkers } from './workers/job-workers';
import { startRetention } from './workers/retention';
import { startSequenceRuntime } from './workers/sequence-runtime';
import { startSweeper } from './workers/sweeper';
import { startWebhookWorkers } from './workers/webhook-workers';

/** Any number of dispatchers may run against one database; pg-boss hands each job to one. */
async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = loadConfig();
    logger = createLogger({ level: config.logLevel, production: config.production, service: 'dispatcher' });
    const dispatcherConfig = loadDispatcherConfig(config.publicUrl);
    const database = await resolveDatabase(config.databaseUrl, loadDevkitPackage);
    // V8 resets one of them whenever it configures a thread's isolate: set again as each comes online.
    keepHeapFlags(HEAP_FLAGS);
    const infra = await openInfrastructure({ config, logger, databaseUrl: database.url, role: 'dispatcher' });
    let stopping = false;
    const container = buildContainer(infra, [], {
      config: dispatcherConfig,
      workerName: `${os.hostname()}:${process.pid}`,
      stopRequested: () => stopping,
    });
    const log = logger;
    const metrics = createMetricsRegistry('dispatcher');
    const jobs = new Histogram({
      name: 'mailcast_jobs_seconds',
      help: 'Jobs this dispatcher handled, by queue and outcome, with their duration.',
      labelNames: ['queue', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers: [metrics],
    });
    const workers = startWorkers(infra.boss, container, HANDLERS, {
      onJobCompleted: (queue, _jobId, seconds) => jobs.observe({ queue, outcome: 'completed' }, seconds),
      onJobFailed: (queue, jobId, error, seconds) => {
        jobs.observe({ queue, outcome: 'failed' }, seconds);
        log.warn('job failed', { queue, jobId, error: error instanceof Error ? error.message : String(error) });
      },
      onError: (error, context) => log.error('job worker error', { context, error: error instanceof Error ? error.message : String(error) }),
    });
    const webhooks = startWebhookWorkers(infra.boss, container, {
      relay: dispatcherConfig.webhookRelay,
      onError: (error, context) => log.error('webhook worker error', { context, error: error instanceof Error ? error.message : String(error) }),
    });
    // Jobs announced with NOTIFY (transactional email) are fetched at once, not at the next poll,
    // and so are outbox events whose writer announced them after its commit.
    const listener = listenForJobs(database.url, (queue) => (queue === OUTBOX_WAKE ? webhooks.wake() : workers.wake(queue)), {
      onError: (error) => log.warn('job listener reconnecting', { error: error instanceof Error ? error.message : String(error) }),
    });
    const stopSweeper = startSweeper(container, dispatcherConfig.sending.sweepIntervalMs, log);
    const stopRetention = startRetention(container, dispatcherConfig.retention.intervalMs, log);
    const sequences = startSequenceRuntime(container, dispatcherConfig.sequences, log);
    let health: http.Server | undefined;
    if (config.dispatcherMetricsPort !== undefined) {
      health = await startHealthServer(config.dispatcherMetricsPort, { isHealthy: () => !stopping, readiness: () => readiness(infra.db) }, metrics);
      logger.info(`dispatcher health and metrics on http://localhost:${portOf(health)}/healthz, /readyz and /metrics`);
    }
    const dsn = await startDsnListener(container, config, logger);
    logger.info(`dispatcher working ${HANDLERS.length} queue(s)`);

    onShutdown(log, async () => {
      stopping = true;
      stopSweeper();
      stopRetention();
      await listener.close();
      await dsn?.close();
      // Both stop fetching and wait for what they hold: a sending job stops claiming, finishes
      // the messages in flight and hands the rest to a fresh job.
      await Promise.all([webhooks.stop(), workers.stop(), sequences.stop()]);
      await infra.close();
      // The pooled SMTP connections and the threads would otherwise keep the process (and the server) busy.
      await Promise.all([
        container.resolve<Mailer>(Mailer).close(),
        container.resolve<Mailer>(PriorityMailer).close(),
        container.resolve<BroadcastRendering>(BroadcastRendering).close(),
        container.resolve<Templates>(Templates).close(),
        container.resolve<WebhookSender>(WebhookSender).close?.(),
      ]);
      await database.stop();
      health?.close();
      log.info('dispatcher stopped');
    });
  } catch (error) {
    exitOnStartupError(logger, error);
  }
}

void main();
