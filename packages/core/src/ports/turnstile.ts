/**
 * Cloudflare Turnstile's server-side check of a form's challenge answer (docs/opt-in-forms.md,
 * "Protections"). Bound to the siteverify adapter; tests bind a fake, since the real service
 * cannot be reached from them.
 */
export interface TurnstileVerifier {
  /** False when no secret is configured (`TURNSTILE_SECRET_KEY` unset): forms then skip the check. */
  readonly enabled: boolean;
  /** Whether `token` (the widget's `cf-turnstile-response`) is a valid, unused answer. */
  verify(token: string, remoteIp: string | null): Promise<boolean>;
}
export const TurnstileVerifier = Symbol.for('mailcast.TurnstileVerifier');
