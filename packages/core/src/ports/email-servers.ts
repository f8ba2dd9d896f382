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
