import { OPT_IN_FORM_DEFAULTS } from '../ports/entities/opt-in-form';
import { conversionRate } from './form-analytics';
import { resolveBlocks, uuidFrom, BLOCK_DEFAULTS } from './form-rules';
import { deepMerge, settingsFromJson, settingsToJson } from './form-settings';
import { nextVariantName } from './form-variants';

describe('opt-in form rules (docs/opt-in-forms.md)', () => {
  it('deep-merges: objects key by key, arrays and scalars replace, null deletes', () => {
    const current = { a: { b: 1, c: { d: 2, e: 3 } }, list: [1, 2], f: 'x' };
    expect(deepMerge(current, { a: { c: { d: null, g: 4 } }, list: [3], f: null, h: { i: 1 } })).toEqual({
      a: { b: 1, c: { e: 3, g: 4 } },
      list: [3],
      h: { i: 1 },
    });
    expect(current).toEqual({ a: { b: 1, c: { d: 2, e: 3 } }, list: [1, 2], f: 'x' });
  });

  it('reads settings leniently with the defaults, and writes them back with every key', () => {
    const settings = settingsFromJson({ security_settings: { rate_limit_max: 8, honeypot: 'yes' }, trigger_settings: { frequency: 'weekly' } });
    expect(settings.securitySettings).toEqual({ ...OPT_IN_FORM_DEFAULTS.securitySettings, rateLimitMax: 8 });
    expect(settings.triggerSettings.frequency).toBe('every_visit');
    expect(settingsFromJson(settingsToJson(settings))).toEqual(settings);
  });

  test.each([
    [[], 'Variant B'],
    [['Variant B'], 'Variant C'],
    [['Variant C'], 'Variant B'],
    [Array.from({ length: 25 }, (_, i) => `Variant ${String.fromCharCode(66 + i)}`), 'Variant AA'],
  ])('names the next variant after %j: %s', (taken, expected) => {
    expect(nextVariantName(new Set(taken))).toBe(expected);
  });

  test.each([
    [0, 0, 0],
    [5, 0, 0],
    [1, 3, 33.33],
    [2, 3, 66.67],
    [3, 2, 150],
  ])('conversion of %d submissions over %d unique views is %d%%', (submissions, unique, rate) => {
    expect(conversionRate(submissions, unique)).toBe(rate);
  });

  it('makes a version 4 UUID of random bytes', () => {
    expect(uuidFrom(new Uint8Array(16).fill(255))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(uuidFrom(new Uint8Array(16))).toBe('00000000-0000-4000-8000-000000000000');
  });

  it('edits a block list by id: kept blocks merged, destroyed ones gone, new ones at the end', () => {
    const now = new Date();
    const block = (id: number, position: number) => ({
      ...BLOCK_DEFAULTS,
      id,
      formId: 1,
      placement: 'form' as const,
      position,
      createdAt: now,
      updatedAt: now,
    });
    const result = resolveBlocks(
      [block(1, 0), block(2, 1)],
      { edit: [{ id: 2, destroy: true }, { id: 1, textValue: 'Hi' }, { blockType: 'button' }] },
      'opt_in_form_blocks',
    );
    expect(result).toEqual([
      { ...BLOCK_DEFAULTS, id: 1, position: 0, textValue: 'Hi' },
      { ...BLOCK_DEFAULTS, blockType: 'button', position: 2, buttonLabel: 'Sign Up' },
    ]);
  });
});
