/// <reference lib="dom" />
/**
 * The one locale the dashboard formats with (docs/dashboard.md, "Locale"). A browser may report a
 * locale Intl refuses: Chromium under LANG=C says `en-US@posix`, and `new Intl.NumberFormat` then
 * throws "Invalid language tag". Every date and number the app shows goes through here, and so
 * does uPlot (see navigator-locale.ts), so no formatter ever sees a refused tag.
 */

/** The locale used when none of the browser's is usable. */
export const FALLBACK_LOCALE = 'en-US';

/**
 * `candidate` as a BCP 47 tag Intl accepts and has data for, or undefined. POSIX spellings are
 * repaired first: the `@modifier` and `.codeset` suffixes go (`en_US.UTF-8@euro` → `en_US`), `_`
 * becomes `-`; `C` and `POSIX` name no language, so they are not usable.
 */
export function usableLocale(candidate: string | null | undefined): string | undefined {
  if (typeof candidate !== 'string') return undefined;
  const tag = candidate.trim().split('@')[0]!.split('.')[0]!.replace(/_/g, '-');
  if (tag === '' || /^(c|posix)$/i.test(tag)) return undefined;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (canonical === undefined) return undefined;
    // Well-formed but unknown ("garbage") would silently format as the default: not usable.
    if (Intl.NumberFormat.supportedLocalesOf([canonical]).length === 0) return undefined;
    if (Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 0) return undefined;
    // The formatters themselves must accept it (what the app and uPlot will construct).
    new Intl.NumberFormat(canonical).format(1);
    new Intl.DateTimeFormat(canonical).format(0);
    return canonical;
  } catch {
    return undefined;
  }
}

/** The first usable locale of `candidates` (the browser's preference order), else en-US. */
export function resolveLocale(candidates: readonly (string | null | undefined)[]): string {
  for (const candidate of candidates) {
    const usable = usableLocale(candidate);
    if (usable !== undefined) return usable;
  }
  return FALLBACK_LOCALE;
}

/** What the browser says the user prefers, most preferred first (nothing outside a browser). */
export function browserLocales(): string[] {
  if (typeof navigator === 'undefined') return [];
  return [...(navigator.languages ?? []), navigator.language];
}

let resolved: string | undefined;
/** The dashboard's locale: the browser's first usable one, resolved once. */
export function appLocale(): string {
  return (resolved ??= resolveLocale(browserLocales()));
}

let numbers: Intl.NumberFormat | undefined;
/** A count with the locale's grouping (1,000,000 in en-US). */
export function formatNumber(value: number): string {
  return (numbers ??= new Intl.NumberFormat(appLocale())).format(value);
}

/** A date and time in the app's locale and the browser's time zone. */
export function formatDateTime(date: Date, options?: Intl.DateTimeFormatOptions): string {
  return date.toLocaleString(appLocale(), options);
}

/**
 * Makes `navigator.language` and `navigator.languages` answer the app's locale when the browser's
 * own value is refused, for code that reads them directly: uPlot builds
 * `new Intl.NumberFormat(navigator.language)` as its module loads, which throws on `en-US@posix`
 * and kept the app from mounting. A usable value is left alone.
 */
export function repairNavigatorLocale(nav: Navigator | undefined = typeof navigator === 'undefined' ? undefined : navigator): void {
  if (nav === undefined) return;
  const locale = resolveLocale([...(nav.languages ?? []), nav.language]);
  if (usableLocale(nav.language) !== nav.language) Object.defineProperty(nav, 'language', { value: locale, configurable: true });
  const reported = [...(nav.languages ?? [])];
  const languages = reported.map((l) => usableLocale(l)).filter((l): l is string => l !== undefined);
  if (languages.length === 0 || languages.length !== reported.length || languages.some((l, i) => l !== reported[i])) {
    Object.defineProperty(nav, 'languages', { value: Object.freeze(languages.length > 0 ? languages : [locale]), configurable: true });
  }
}
