import type { EmailServer } from './entities/channel';

/** What one SMTP handshake with a server showed. */
export interface SmtpCheck {
  ok: boolean;
  message: string;
}

/** Connects to a server as sending would (TLS, AUTH), then quits without sending anything. */
export interface SmtpProbe {
  check(server: EmailServer): Promise<SmtpCheck>;
}
export const SmtpProbe = Symbol.for('mailcast.SmtpProbe');

/**
 * The address policy for email server hosts (docs/email-servers.md, "Addresses"): the one
 * webhook URLs follow, checked when a host is written and again at every connect.
 */
export interface SmtpHostPolicy {
  /** Why `host` may not be an email server's host, or null when it may. */
  refusal(host: string): Promise<string | null>;
  /** Whether `host` can only mean this machine (every address it stands for is loopback). */
  isLoopback(host: string): Promise<boolean>;
}
export const SmtpHostPolicy = Symbol.for('mailcast.SmtpHostPolicy');

/** RSA only: nodemailer signs rsa-sha256, and an Ed25519 key would leave messages unsigned. */
export type DkimAlgorithm = 'rsa';

/** A new DKIM key: the private key as PEM, and the public key as a DNS TXT record's `p=` value. */
export interface DkimKeyPair {
  privateKeyPem: string;
  publicKeyBase64: string;
}

export interface DkimKeyGenerator {
  generate(algorithm: DkimAlgorithm): Promise<DkimKeyPair>;
}
export const DkimKeyGenerator = Symbol.for('mailcast.DkimKeyGenerator');
