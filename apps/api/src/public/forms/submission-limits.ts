import { WindowCounter } from '../../http/client-limits';

/**
 * The public form endpoints' limits per client address (req.ip: TRUSTED_PROXIES decides it),
 * kept in this process's memory so that a flood is refused before any database query
 * (docs/opt-in-forms.md, "Protections"). With several api replicas each counts its own share.
 */
export const FLOOD_SUBMISSIONS_PER_MINUTE = 30;
export const FLOOD_VIEWS_PER_MINUTE = 300;
/** Beyond this many (address, form) pairs, the oldest are forgotten: memory stays bounded. */
const MAX_PAIRS = 100_000;

interface FormWindow {
  /** Accepted submissions' times (epoch ms), oldest first, within the form's window. */
  times: number[];
  max: number;
  windowMs: number;
}

export class FormSubmissionLimits {
  private readonly flood: WindowCounter;
  private readonly views: WindowCounter;
  private readonly perForm = new Map<string, FormWindow>();

  constructor(private readonly now: () => number = Date.now) {
    this.flood = new WindowCounter(now);
    this.views = new WindowCounter(now);
  }

  /**
   * Before anything is read: an address past FLOOD_SUBMISSIONS_PER_MINUTE, or one that the
   * form's own limit refused and whose window has not yet moved on, is refused from memory.
   * Answers the Retry-After seconds, or null to go on.
   */
  refuseSubmissionEarly(address: string, identifier: string): number | null {
    if (this.flood.count(address) > FLOOD_SUBMISSIONS_PER_MINUTE) return this.flood.retryAfterSeconds();
    const entry = this.perForm.get(`${address}|${identifier}`);
    if (entry) return this.retryAfter(entry);
    return null;
  }

  /**
   * The form's security_settings limit (rate_limit_max per rate_limit_window_minutes), a sliding
   * window per address and form; counts this submission when it is allowed.
   */
  countForForm(address: string, identifier: string, max: number, windowMinutes: number): number | null {
    const key = `${address}|${identifier}`;
    const windowMs = windowMinutes * 60_000;
    let entry = this.perForm.get(key);
    if (!entry) {
      if (this.perForm.size >= MAX_PAIRS) this.perForm.delete(this.perForm.keys().next().value!);
      entry = { times: [], max, windowMs };
      this.perForm.set(key, entry);
    }
    entry.max = max;
    entry.windowMs = windowMs;
    const refusal = this.retryAfter(entry);
    if (refusal !== null) return refusal;
    entry.times.push(this.now());
    return null;
  }

  /** Views: a generous flood guard only (views are cheap, but each is a write). */
  refuseView(address: string): number | null {
    return this.views.count(address) > FLOOD_VIEWS_PER_MINUTE ? this.views.retryAfterSeconds() : null;
  }

  private retryAfter(entry: FormWindow): number | null {
    const now = this.now();
    while (entry.times.length > 0 && entry.times[0]! <= now - entry.windowMs) entry.times.shift();
    if (entry.times.length < entry.max) return null;
    return Math.max(1, Math.ceil((entry.times[0]! + entry.windowMs - now) / 1000));
  }
}
