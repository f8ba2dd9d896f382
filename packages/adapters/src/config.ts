import { parseRetrySchedule } from '@mailcast/domain';
import Joi from 'joi';
import net from 'node:net';
import path from 'node:path';
import { loadInboundConfig, type InboundConfig } from './inbound/inbound-config';
import { decodeSecretKey } from './secrets/secret-box';
import { DEFAULT_TEMPLATE_TIME_LIMIT_MS } from './templates/threaded-templates';

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
  /** Failed authentications per client address per minute before 429 (docs/security.md). */
  authFailuresPerMinute: number;
  dispatcherMetricsPort: number | undefined;
  /** Set: the api's /metrics answers only `Authorization: Bearer <token>` (docs/security.md). */
  metricsToken: string | undefined;
  logLevel: string;
  production: boolean;
  /** MAILCAST_SECRET_KEY; unset outside production means the development key (docs/secrets.md). */
  secretKey: Buffer | undefined;
  /** MAILCAST_SECRET_KEYS_PREVIOUS: keys that still open values sealed before a key change. */
  previousSecretKeys: Buffer[];
  /** MAILCAST_DATA_DIR, else `.data/` at the repository root: development state. */
  dataDir: string;
  /** SMTP_ALLOW_PLAINTEXT: `tls: none` allowed for hosts other than loopback. */
  smtpAllowPlaintext: boolean;
  /** MAILCAST_API_STATEMENT_TIMEOUT_MS: any statement of the api's pool (docs/security.md, "Statement time-outs"). */
  apiStatementTimeoutMs: number;
  /** MAILCAST_SEGMENT_TIMEOUT_MS: how long one segment count or page may run (docs/segments.md, "Bounds"). */
  segmentTimeoutMs: number;
  /** TRUSTED_PROXIES: the addresses whose X-Forwarded-For is believed; none by default (docs/security.md). */
  trustedProxies: string[];
  /**
   * SMTP_ALLOW_PRIVATE: email server hosts in loopback, private, link-local and metadata ranges
   * allowed (docs/email-servers.md, "Addresses"); npm start sets it for its capture server.
   */
  smtpAllowPrivate: boolean;
  /** MAILCAST_SYSTEM_FROM: the sender of the installation's own email, reset links (docs/teams.md, The system sender). */
  systemFrom: { name: string | null; email: string };
  /** The bounce and complaint receivers (INBOUND_*, docs/bounces.md). */
  inbound: InboundConfig;
  /** MAILCAST_TEMPLATE_TIME_LIMIT_MS: one email's Liquid render on a templates thread (docs/templates.md "Rendering"). */
  templateTimeLimitMs: number;
  /** TURNSTILE_SECRET_KEY: forms that ask for a Turnstile check verify with it; unset, none is checked (docs/opt-in-forms.md). */
  turnstileSecretKey: string | undefined;
  /** MAILCAST_REQUIRE_2FA: a user without two-factor must enrol before using the API (docs/teams.md, "Two-factor"). */
  requireTwoFactor: boolean;
  /** OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, all three or none: OpenID Connect sign-in (docs/teams.md). */
  oidc: { issuer: string; clientId: string; clientSecret: string } | undefined;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h';
const DEFAULT_SYSTEM_FROM = 'Mailcast <no-reply@localhost>';
/** `address`, or `Name <address>`; the address has no spaces or angle brackets. */
const SYSTEM_FROM = /^(?:([^<>]*?)\s*<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+))$/;

function parseSystemFrom(raw: string): { name: string | null; email: string } {
  const m = SYSTEM_FROM.exec(raw.trim())!;
  return m[3] !== undefined ? { name: null, email: m[3] } : { name: m[1]!.replace(/^"|"$/g, '') || null, email: m[2]! };
}

const KEY_MESSAGE = 'must be the base64 of 32 random bytes (make one with: openssl rand -base64 32)';

/** Never echoes the value: these are keys. */
const secretKeys = (name: string, many: boolean) =>
  Joi.string().custom((value: string, helpers) => {
    const parts = many ? value.split(',').filter((part) => part.trim() !== '') : [value];
    return parts.every((part) => decodeSecretKey(part) !== null)
      ? value
      : helpers.message({ custom: `"${name}" ${many ? 'must be comma-separated keys, each' : ''} ${KEY_MESSAGE}`.replace('  ', ' ') });
  });

const port = Joi.number().integer().min(0).max(65535);

/** Express's names for address ranges, as `trust proxy` takes them. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, a CIDR range (`10.0.0.0/8`, `fd00::/8`) or one of PROXY_RANGE_NAMES. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

const proxyList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

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
  AUTH_FAILURES_PER_MINUTE: Joi.number().integer().min(1).default(50),
  DISPATCHER_METRICS_PORT: port,
  METRICS_TOKEN: Joi.string()
    .min(16)
    .pattern(/^[\x21-\x7e]+$/)
    .messages({
      'string.min': '"METRICS_TOKEN" must be at least 16 characters',
      'string.pattern.base': '"METRICS_TOKEN" must be printable ASCII without spaces',
    }),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly').default('info'),
  NODE_ENV: Joi.string().default('development'),
  MAILCAST_SECRET_KEY: secretKeys('MAILCAST_SECRET_KEY', false),
  MAILCAST_SECRET_KEYS_PREVIOUS: secretKeys('MAILCAST_SECRET_KEYS_PREVIOUS', true),
  MAILCAST_DATA_DIR: Joi.string(),
  SMTP_ALLOW_PLAINTEXT: Joi.boolean().default(false),
  MAILCAST_SEGMENT_TIMEOUT_MS: Joi.number().integer().min(1).default(5_000),
  MAILCAST_API_STATEMENT_TIMEOUT_MS: Joi.number().integer().min(1).default(30_000),
  TRUSTED_PROXIES: Joi.string().custom((value: string, helpers) =>
    proxyList(value).every(isProxyEntry)
      ? value
      : helpers.message({ custom: `"TRUSTED_PROXIES" must be comma-separated addresses or CIDR ranges (or ${PROXY_RANGE_NAMES.join(', ')})` }),
  ),
  SMTP_ALLOW_PRIVATE: Joi.boolean().default(false),
  MAILCAST_SYSTEM_FROM: Joi.string()
    .pattern(SYSTEM_FROM)
    .default(DEFAULT_SYSTEM_FROM)
    .messages({ 'string.pattern.base': '"MAILCAST_SYSTEM_FROM" must be an address, or a name and <address>' }),
  MAILCAST_TEMPLATE_TIME_LIMIT_MS: Joi.number().integer().min(1).default(DEFAULT_TEMPLATE_TIME_LIMIT_MS),
  TURNSTILE_SECRET_KEY: Joi.string(),
  MAILCAST_REQUIRE_2FA: Joi.boolean().default(false),
  OIDC_ISSUER: Joi.string().uri({ scheme: ['http', 'https'] }),
  OIDC_CLIENT_ID: Joi.string(),
  OIDC_CLIENT_SECRET: Joi.string(),
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
  const production = value.NODE_ENV === 'production';
  if (production && value.MAILCAST_SECRET_KEY === undefined) {
    throw new ConfigError(`Invalid configuration: "MAILCAST_SECRET_KEY" is required when NODE_ENV=production; it ${KEY_MESSAGE}`);
  }
  const oidcNames = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'];
  const oidcSet = oidcNames.filter((name) => value[name] !== undefined);
  if (oidcSet.length > 0 && oidcSet.length < oidcNames.length) {
    throw new ConfigError(
      `Invalid configuration: OpenID Connect needs ${oidcNames.join(', ')} together; missing ${oidcNames.filter((n) => !oidcSet.includes(n)).join(', ')}`,
    );
  }
  let inbound: InboundConfig;
  try {
    inbound = loadInboundConfig(present);
  } catch (e) {
    throw new ConfigError((e as Error).message);
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
    authFailuresPerMinute: value.AUTH_FAILURES_PER_MINUTE,
    dispatcherMetricsPort: value.DISPATCHER_METRICS_PORT,
    metricsToken: value.METRICS_TOKEN,
    logLevel: value.LOG_LEVEL,
    production,
    secretKey: value.MAILCAST_SECRET_KEY === undefined ? undefined : decodeSecretKey(value.MAILCAST_SECRET_KEY as string)!,
    previousSecretKeys: ((value.MAILCAST_SECRET_KEYS_PREVIOUS as string | undefined) ?? '')
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => decodeSecretKey(part)!),
    // From src/ or dist/ of this package alike, as the devkit's dataDirectory does.
    dataDir: path.resolve((value.MAILCAST_DATA_DIR as string | undefined) ?? path.join(__dirname, '../../..', '.data')),
    smtpAllowPlaintext: value.SMTP_ALLOW_PLAINTEXT,
    segmentTimeoutMs: value.MAILCAST_SEGMENT_TIMEOUT_MS,
    apiStatementTimeoutMs: value.MAILCAST_API_STATEMENT_TIMEOUT_MS,
    trustedProxies: proxyList(value.TRUSTED_PROXIES as string | undefined),
    smtpAllowPrivate: value.SMTP_ALLOW_PRIVATE,
    systemFrom: parseSystemFrom(value.MAILCAST_SYSTEM_FROM as string),
    inbound,
    templateTimeLimitMs: value.MAILCAST_TEMPLATE_TIME_LIMIT_MS,
    turnstileSecretKey: value.TURNSTILE_SECRET_KEY,
    requireTwoFactor: value.MAILCAST_REQUIRE_2FA,
    oidc: oidcSet.length === 0 ? undefined : { issuer: value.OIDC_ISSUER, clientId: value.OIDC_CLIENT_ID, clientSecret: value.OIDC_CLIENT_SECRET },
  };
}
