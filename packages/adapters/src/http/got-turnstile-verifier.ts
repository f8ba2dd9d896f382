import type { TurnstileVerifier } from '@mailcast/core';
import type * as Got from 'got';
import { createRequire } from 'node:module';

/** Cloudflare's documented endpoint for checking a Turnstile answer on the server. */
export const TURNSTILE_SITEVERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify';
const TIMEOUT_MS = 5_000;

// got is loaded with the first check, as GotWebhookSender loads it: most api processes never verify.
let loadedGot: Got.Got | undefined;
const requireModule = createRequire(__filename);
const gotInstance = (): Got.Got => (loadedGot ??= (requireModule('got') as typeof Got).default);

/**
 * Checks a Turnstile answer with Cloudflare's siteverify (docs/opt-in-forms.md, "Protections").
 * An answer Cloudflare cannot be asked about (time-out, 5xx, not JSON) counts as not verified:
 * a form that asked for the check never lets an unchecked submission through.
 */
export class GotTurnstileVerifier implements TurnstileVerifier {
  readonly enabled: boolean;

  constructor(
    private readonly secret: string | undefined,
    private readonly url: string = TURNSTILE_SITEVERIFY_URL,
  ) {
    this.enabled = secret !== undefined && secret !== '';
  }

  async verify(token: string, remoteIp: string | null): Promise<boolean> {
    if (!this.enabled || token === '' || token.length > 2048) return false;
    const form: Record<string, string> = { secret: this.secret!, response: token };
    if (remoteIp) form.remoteip = remoteIp;
    try {
      const answer = await gotInstance()
        .post(this.url, { form, timeout: { request: TIMEOUT_MS }, retry: { limit: 0 }, followRedirect: false })
        .json<{ success?: unknown }>();
      return answer.success === true;
    } catch {
      return false;
    }
  }
}
