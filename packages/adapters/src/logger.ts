import winston from 'winston';

export type Logger = winston.Logger;

/**
 * JSON lines in production (for log shippers), one readable line each in development.
 * Structured fields of a request line travel under `http`.
 */
export function createLogger(options: { level: string; production: boolean; service: string }): Logger {
  const format = options.production
    ? winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json())
    : winston.format.combine(
        winston.format.colorize(),
        winston.format.timestamp({ format: 'HH:mm:ss.SSS' }),
        // `http` (a request line's fields) is left out: the message already says it all.
        winston.format.printf(({ timestamp, level, message, service, http: _http, ...meta }) => {
          const rest = Object.keys(meta).length > 0 ? ' ' + JSON.stringify(meta) : '';
          return `${String(timestamp)} ${level} [${String(service)}] ${String(message)}${rest}`;
        }),
      );
  return winston.createLogger({
    level: options.level,
    defaultMeta: { service: options.service },
    format,
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
