import { EXPORT_WEBHOOK_SECRET, historySince, parseExportDays, parseExportPage } from './export';

describe('export bounds (docs/export.md)', () => {
  it('defaults limit to 250 and offset to 0, clamps a larger limit, and refuses what is not a whole number in range', () => {
    expect(parseExportPage(undefined, undefined)).toEqual({ ok: true, value: { limit: 250, offset: 0 } });
    expect(parseExportPage('1', '7')).toEqual({ ok: true, value: { limit: 1, offset: 7 } });
    expect(parseExportPage('251', '0')).toEqual({ ok: true, value: { limit: 250, offset: 0 } });
    for (const limit of ['0', '-1', '1.5', 'x', '', ['1', '2']]) expect(parseExportPage(limit, undefined).ok).toBe(false);
    for (const offset of ['-1', '1.5', 'x', '', '1e3']) expect(parseExportPage(undefined, offset).ok).toBe(false);
  });

  it('reads days_history 1..365, absent as undefined', () => {
    expect(parseExportDays(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseExportDays('1')).toEqual({ ok: true, value: 1 });
    expect(parseExportDays('365')).toEqual({ ok: true, value: 365 });
    for (const days of ['0', '366', '-3', 'x', ''])
      expect(parseExportDays(days)).toEqual({ ok: false, error: 'days_history must be an integer from 1 to 365' });
  });

  it('starts the window whole days before now, and masks a webhook secret without any of its characters', () => {
    expect(historySince(new Date('2026-03-31T12:00:00Z'), 30).toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(EXPORT_WEBHOOK_SECRET).toBe('whsec_' + '*'.repeat(44));
  });
});
