import type { Logger } from './logger';

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal, or `stop` outlasting
 * `timeoutMs`, exits at once: shutdown is bounded.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, timeoutMs = 20_000): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info(`${signal} received: shutting down`);
    const timer = setTimeout(() => {
      logger.error(`shutdown took longer than ${timeoutMs} ms: exiting`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
  // Started by `npm start` with an IPC channel: when that parent goes away, so do we.
  if (process.send !== undefined) process.on('disconnect', () => handle('SIGTERM'));
}

/** Prints a start-up failure (bad configuration, unreachable database) without a stack dump. */
export function exitOnStartupError(logger: Logger | undefined, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  if (logger) logger.error(`failed to start: ${message}`);
  else process.stderr.write(`failed to start: ${message}\n`);
  process.exit(1);
}
