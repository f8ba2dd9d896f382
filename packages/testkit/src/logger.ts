import type { Logger } from '@mailcast/adapters';
import Transport from 'winston-transport';
import winston from 'winston';

/** A logger that keeps every entry in memory, so tests can assert what was (not) logged. */
export function memoryLogger(): { logger: Logger; entries: Array<Record<string, unknown>> } {
  const entries: Array<Record<string, unknown>> = [];
  class Memory extends Transport {
    override log(info: Record<string, unknown>, next: () => void): void {
      entries.push(info);
      next();
    }
  }
  const logger = winston.createLogger({ level: 'silly', transports: [new Memory()] });
  return { logger, entries };
}
