import { FALLBACK_LOCALE, repairNavigatorLocale, resolveLocale, usableLocale } from './ui/locale';

/** docs/dashboard.md, "Locale": whatever the browser reports, the app formats with a tag Intl accepts. */
describe('the dashboard locale', () => {
  it.each([
    ['en-US@posix', 'en-US'], // Chromium under LANG=C
    ['C', FALLBACK_LOCALE],
    ['POSIX', FALLBACK_LOCALE],
    ['de-DE', 'de-DE'],
    ['', FALLBACK_LOCALE],
    ['garbage', FALLBACK_LOCALE], // well-formed but unknown
    ['%%%not a tag', FALLBACK_LOCALE],
    ['en_US.UTF-8', 'en-US'],
    ['de_DE.UTF-8@euro', 'de-DE'],
    ['fr-ca', 'fr-CA'],
  ])('resolves %p to %p, which every formatter accepts', (reported, expected) => {
    const locale = resolveLocale([reported]);
    expect(locale).toBe(expected);
    expect(() => new Intl.NumberFormat(locale).format(1_000_000)).not.toThrow();
    expect(() => new Intl.DateTimeFormat(locale).format(0)).not.toThrow();
  });

  it('takes the first usable locale of the preference list, else en-US', () => {
    expect(resolveLocale(['C', 'garbage', 'de-DE', 'fr-FR'])).toBe('de-DE');
    expect(resolveLocale([])).toBe(FALLBACK_LOCALE);
    expect(resolveLocale([undefined, null, 'en-US@posix'])).toBe('en-US');
    expect(usableLocale('en-US@posix')).toBe('en-US');
    expect(usableLocale('C')).toBeUndefined();
  });

  it("formats with the resolved locale's conventions", () => {
    expect(new Intl.NumberFormat(resolveLocale(['de-DE'])).format(1234567)).toBe('1.234.567');
    expect(new Intl.NumberFormat(resolveLocale(['en-US@posix'])).format(1234567)).toBe('1,234,567');
  });

  it('repairs a navigator whose language Intl refuses, so uPlot can build its formatter', () => {
    const nav = { language: 'en-US@posix', languages: ['en-US@posix'] } as unknown as Navigator;
    expect(() => new Intl.NumberFormat(nav.language)).toThrow(RangeError);
    repairNavigatorLocale(nav);
    expect(nav.language).toBe('en-US');
    expect(nav.languages).toEqual(['en-US']);
    expect(new Intl.NumberFormat(nav.language).format(1000)).toBe('1,000');
  });

  it('leaves a usable navigator alone and drops only the refused entries', () => {
    const good = { language: 'de-DE', languages: ['de-DE', 'en-US'] } as unknown as Navigator;
    repairNavigatorLocale(good);
    expect(good.language).toBe('de-DE');
    expect(good.languages).toEqual(['de-DE', 'en-US']);
    const mixed = { language: 'C', languages: ['C', 'fr-FR'] } as unknown as Navigator;
    repairNavigatorLocale(mixed);
    expect(mixed.language).toBe('fr-FR');
    expect(mixed.languages).toEqual(['fr-FR']);
  });
});
