// What development and tests use from the devkit, by area.

// PostgreSQL for development and tests: an embedded server and where its data lives.
export { dataDirectory, embeddedPort, REPO_ROOT } from './paths';
export { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
export { resolveDatabase } from './resolve-database';

// A capturing SMTP server on loopback.
export { parseEmail, startSmtpCapture, type CapturedMessage, type ParsedEmail, type RecipientVerdict, type SmtpCapture } from './smtp-capture';
