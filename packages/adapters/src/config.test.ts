import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';

const KEY = randomBytes(32);
const OLD = randomBytes(32);

describe('loadConfig (docs/operations.md environment)', () => {
  it('applies the contract defaults', () => {
    expect(loadConfig({})).toEqual({
      databaseUrl: undefined,
      port: 3000,
      publicUrl: 'http://localhost:3000',
      webhookAllowPrivate: false,
      webhookRetryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000],
      webhookTimeoutMs: 30_000,
      rateLimitPerMinute: 1200,
      authFailuresPerMinute: 50,
      dispatcherMetricsPort: undefined,
      metricsToken: undefined,
      logLevel: 'info',
      production: false,
      secretKey: undefined,
      previousSecretKeys: [],
      dataDir: path.resolve(__dirname, '../../..', '.data'),
      smtpAllowPlaintext: false,
      segmentTimeoutMs: 5_000,
      apiStatementTimeoutMs: 30_000,
      trustedProxies: [],
      smtpAllowPrivate: false,
      inbound: { ses: null, postmark: null, mailgun: null, sendgrid: null, smtp: null },
      templateTimeLimitMs: 300,
      turnstileSecretKey: undefined,
      requireTwoFactor: false,
      oidc: undefined,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db.internal:5432/mailcast',
      PORT: '8080',
      PUBLIC_URL: 'https://mail.example.com/',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s, 2s,250ms',
      WEBHOOK_TIMEOUT_MS: '1500',
      RATE_LIMIT_PER_MINUTE: '0',
      AUTH_FAILURES_PER_MINUTE: '20',
      DISPATCHER_METRICS_PORT: '9464',
      METRICS_TOKEN: 'scrape-0123456789abcdef',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      MAILCAST_SECRET_KEY: KEY.toString('base64'),
      MAILCAST_SECRET_KEYS_PREVIOUS: `${OLD.toString('base64')},`,
      MAILCAST_DATA_DIR: '/var/lib/mailcast',
      SMTP_ALLOW_PLAINTEXT: 'true',
      TRUSTED_PROXIES: '10.0.0.7, 192.168.0.0/16,fd00::/8,loopback',
      MAILCAST_SEGMENT_TIMEOUT_MS: '800',
      MAILCAST_API_STATEMENT_TIMEOUT_MS: '12000',
      SMTP_ALLOW_PRIVATE: 'true',
      MAILCAST_TEMPLATE_TIME_LIMIT_MS: '750',
      TURNSTILE_SECRET_KEY: '0x4AAAAAAA-secret',
      MAILCAST_REQUIRE_2FA: 'true',
      OIDC_ISSUER: 'https://id.example.com',
      OIDC_CLIENT_ID: 'mailcast',
      OIDC_CLIENT_SECRET: 'shh',
    });
    expect(config).toEqual({
      databaseUrl: 'postgres://u:p@db.internal:5432/mailcast',
      port: 8080,
      publicUrl: 'https://mail.example.com',
      webhookAllowPrivate: true,
      webhookRetryScheduleMs: [1000, 2000, 250],
      webhookTimeoutMs: 1500,
      rateLimitPerMinute: 0,
      authFailuresPerMinute: 20,
      dispatcherMetricsPort: 9464,
      metricsToken: 'scrape-0123456789abcdef',
      logLevel: 'debug',
      production: true,
      secretKey: KEY,
      previousSecretKeys: [OLD],
      dataDir: '/var/lib/mailcast',
      smtpAllowPlaintext: true,
      segmentTimeoutMs: 800,
      apiStatementTimeoutMs: 12_000,
      trustedProxies: ['10.0.0.7', '192.168.0.0/16', 'fd00::/8', 'loopback'],
      smtpAllowPrivate: true,
      inbound: { ses: null, postmark: null, mailgun: null, sendgrid: null, smtp: null },
      templateTimeLimitMs: 750,
      turnstileSecretKey: '0x4AAAAAAA-secret',
      requireTwoFactor: true,
      oidc: { issuer: 'https://id.example.com', clientId: 'mailcast', clientSecret: 'shh' },
    });
  });

  it('wants the three OIDC variables together (docs/teams.md)', () => {
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'mailcast' })).toThrow(
      new ConfigError('Invalid configuration: OpenID Connect needs OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET together; missing OIDC_CLIENT_SECRET'),
    );
    expect(() => loadConfig({ OIDC_ISSUER: 'ftp://id.example.com', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' })).toThrow(
      /"OIDC_ISSUER" must be a valid uri/,
    );
    expect(() => loadConfig({ MAILCAST_REQUIRE_2FA: 'sometimes' })).toThrow(/"MAILCAST_REQUIRE_2FA" must be a boolean/);
  });

  it('derives PUBLIC_URL from PORT', () => {
    expect(loadConfig({ PORT: '4000' }).publicUrl).toBe('http://localhost:4000');
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' })).toMatchObject({ databaseUrl: undefined, port: 3000 });
  });

  it.each([
    ['PORT', 'eighty', '"PORT" must be a number'],
    ['PORT', '70000', '"PORT" must be less than or equal to 65535'],
    ['DATABASE_URL', 'mysql://x/y', '"DATABASE_URL" must be a valid uri with a scheme matching the postgres|postgresql pattern'],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes please', '"WEBHOOK_ALLOW_PRIVATE" must be a boolean'],
    ['WEBHOOK_RETRY_SCHEDULE', '1s,soon', '"WEBHOOK_RETRY_SCHEDULE" must be comma-separated durations such as 1s,2s,3s (units ms, s, m, h)'],
    ['METRICS_TOKEN', 'short', '"METRICS_TOKEN" must be at least 16 characters'],
    ['METRICS_TOKEN', 'has a space in it, sadly', '"METRICS_TOKEN" must be printable ASCII without spaces'],
    ['WEBHOOK_TIMEOUT_MS', '0', '"WEBHOOK_TIMEOUT_MS" must be greater than or equal to 1'],
    ['RATE_LIMIT_PER_MINUTE', '-5', '"RATE_LIMIT_PER_MINUTE" must be greater than or equal to 0'],
    ['AUTH_FAILURES_PER_MINUTE', '0', '"AUTH_FAILURES_PER_MINUTE" must be greater than or equal to 1'],
    ['LOG_LEVEL', 'loud', '"LOG_LEVEL" must be one of [error, warn, info, http, verbose, debug, silly]'],
    ['MAILCAST_SECRET_KEY', 'c2hvcnQ=', '"MAILCAST_SECRET_KEY" must be the base64 of 32 random bytes (make one with: openssl rand -base64 32)'],
    ['MAILCAST_SECRET_KEYS_PREVIOUS', 'not base64!', '"MAILCAST_SECRET_KEYS_PREVIOUS" must be comma-separated keys, each must be the base64'],
    ['SMTP_ALLOW_PLAINTEXT', 'maybe', '"SMTP_ALLOW_PLAINTEXT" must be a boolean'],
    ['TRUSTED_PROXIES', '10.0.0.300', '"TRUSTED_PROXIES" must be comma-separated addresses or CIDR ranges (or loopback, linklocal, uniquelocal)'],
    ['TRUSTED_PROXIES', '10.0.0.0/33', '"TRUSTED_PROXIES" must be comma-separated addresses or CIDR ranges (or loopback, linklocal, uniquelocal)'],
    ['TRUSTED_PROXIES', 'proxy.internal', '"TRUSTED_PROXIES" must be comma-separated addresses or CIDR ranges (or loopback, linklocal, uniquelocal)'],
    ['SMTP_ALLOW_PRIVATE', 'sure', '"SMTP_ALLOW_PRIVATE" must be a boolean'],
    ['MAILCAST_TEMPLATE_TIME_LIMIT_MS', '0', '"MAILCAST_TEMPLATE_TIME_LIMIT_MS" must be greater than or equal to 1'],
    ['MAILCAST_TEMPLATE_TIME_LIMIT_MS', 'soon', '"MAILCAST_TEMPLATE_TIME_LIMIT_MS" must be a number'],
  ])('refuses %s=%s with a message naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${message}`);
  });

  it('never echoes a bad key', () => {
    expect(() => loadConfig({ MAILCAST_SECRET_KEY: 'c2VjcmV0LXNob3J0' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('c2VjcmV0LXNob3J0') }),
    );
  });

  it('refuses a production start without MAILCAST_SECRET_KEY, saying how to make one', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      'Invalid configuration: "MAILCAST_SECRET_KEY" is required when NODE_ENV=production; it must be the base64 of 32 random bytes',
    );
  });

  it('reports every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'y' })).toThrow(/"PORT".*; "LOG_LEVEL"/);
  });
});
