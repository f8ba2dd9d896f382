import type { QrCodes, Totp } from '@mailcast/core';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** The issuer authenticator apps show beside the account. */
export const TOTP_ISSUER = 'Mailcast';
const PERIOD_SECONDS = 30;

/**
 * RFC 6238 with otplib's defaults, which every authenticator app reads: SHA-1, 6 digits, 30 s,
 * a 20-byte base32 secret. One step of drift either way is accepted (docs/teams.md, "Two-factor").
 */
export class OtplibTotp implements Totp {
  generateSecret(): string {
    return generateSecret();
  }

  async stepOf(secret: string, code: string, at: Date): Promise<number | null> {
    const result = await verify({ secret, token: code, epoch: Math.floor(at.getTime() / 1000), epochTolerance: PERIOD_SECONDS });
    // The answer's type also covers HOTP, which has no time step.
    return result.valid && 'timeStep' in result ? result.timeStep : null;
  }

  uri(secret: string, account: string): string {
    return generateURI({ issuer: TOTP_ISSUER, label: account, secret });
  }
}

/** QR codes drawn by the `qrcode` package, as SVG: no image library, and it scales. */
export class QrcodeSvg implements QrCodes {
  svg(text: string): Promise<string> {
    return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  }
}
