import { loadConfig, SecretBox, secretBoxFor } from '@mailcast/adapters';
import { EMAIL_SERVER_DEFAULTS, type EmailServer } from '@mailcast/core';
import { randomBytes } from 'node:crypto';
import { memoryLogger } from './logger';

/**
 * The SecretBox the apps under test use: with no MAILCAST_SECRET_KEY in the env they are given,
 * that is the development key under `.data/`, so fixtures seal values the apps can open.
 */
export function appSecretBox(): SecretBox {
  return secretBoxFor(loadConfig({}), memoryLogger().logger);
}

/** A box of a random key, for an adapter tested alone. */
export function throwawaySecretBox(): SecretBox {
  return new SecretBox(randomBytes(32));
}

/** An email server as the repositories return it: loopback without TLS unless overridden. */
export function anEmailServer(overrides: Partial<EmailServer> = {}): EmailServer {
  return {
    id: 1,
    channelId: 1,
    host: '127.0.0.1',
    port: 25,
    tls: 'none',
    username: null,
    password: null,
    fromEmail: null,
    fromName: null,
    ...EMAIL_SERVER_DEFAULTS,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...overrides,
  };
}
