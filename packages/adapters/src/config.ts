import { parseRetrySchedule } from '@mailcast/domain';
import Joi from 'joi';

/** Every process (api, dispatcher, migrate, admin) reads the same variables (docs/operations.md). */
export interface Config {
  /** Unset: the embedded PostgreSQL under `.data/`. */
  databaseUrl: string | undefined;
  port: number;
  publicUrl: string;
  webhookAllowPrivate: boolean;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  rateLimitPerMinute: number;
  dispatcherMetricsPort: number | undefined;
  /** Set: the api's /metrics answers only `Authorization: Bearer <token>` (docs/security.md). */
  metricsToken: string | undefined;
  logLevel: string;
  production: boolean;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h';

const port = Joi.number().integer().min(0).max(65535);

const schema = Joi.object({
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  PORT: port.default(3000),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  WEBHOOK_ALLOW_PRIVATE: Joi.boolean().default(false),
  WEBHOOK_RETRY_SCHEDULE: Joi.string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .custom((value: string, helpers) => {
      try {
        parseRetrySchedule(value);
        return value;
      } catch {
        return helpers.message({ custom: '"WEBHOOK_RETRY_SCHEDULE" must be comma-separated durations such as 1s,2s,3s (units ms, s, m, h)' });
      }
    }),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(1).default(30_000),
  RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(0).default(1200),
  DISPATCHER_METRICS_PORT: port,
  METRICS_TOKEN: Joi.string().min(16).pattern(/^[\x21-\x7e]+$/).messages({
    'string.min': '"METRICS_TOKEN" must be at least 16 characters',
    'string.pattern.base': '"METRICS_TOKEN" must be printable ASCII without spaces',
  }),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly').default('info'),
  NODE_ENV: Joi.string().default('development'),
})
  .unknown(true)
  .prefs({ abortEarly: false, convert: true });

/** Validates the environment once at start-up; a bad value stops the process with its name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset", as a shell's `VAR= cmd` does.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const { value, error } = schema.validate(present);
  if (error) {
    throw new ConfigError(`Invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  }
  const portValue = value.PORT as number;
  return {
    databaseUrl: value.DATABASE_URL,
    port: portValue,
    publicUrl: ((value.PUBLIC_URL as string | undefined) ?? `http://localhost:${portValue}`).replace(/\/+$/, ''),
    webhookAllowPrivate: value.WEBHOOK_ALLOW_PRIVATE,
    webhookRetryScheduleMs: parseRetrySchedule(value.WEBHOOK_RETRY_SCHEDULE as string),
    webhookTimeoutMs: value.WEBHOOK_TIMEOUT_MS,
    rateLimitPerMinute: value.RATE_LIMIT_PER_MINUTE,
    dispatcherMetricsPort: value.DISPATCHER_METRICS_PORT,
    metricsToken: value.METRICS_TOKEN,
    logLevel: value.LOG_LEVEL,
    production: value.NODE_ENV === 'production',
  };
}
