import { parseSegmentDefinition, SEGMENT_FIELDS, SEGMENT_OPERATORS } from '@mailcast/domain';
import { FIELDS, fromApiRule, kindOf, newRow, OPERATORS, toApiRule, withField, type RuleRow } from './ui/segment-rules';

/** A row of the builder filled in as a user would for this field and operator. */
function filled(field: string, operator: string): RuleRow {
  const row = { ...newRow(field), operator };
  const kind = kindOf(field);
  if (kind === 'custom') return { ...row, key: 'plan', value: operator === 'gt' || operator === 'lt' ? '5' : 'pro' };
  if (kind === 'engagement') return { ...row, broadcast: 'any', withinDays: '30' };
  if (kind === 'date') return { ...row, value: '2026-01-15' };
  if (kind === 'text' || kind === 'tags') return { ...row, value: 'vip' };
  return row;
}

const parse = (rule: unknown) => parseSegmentDefinition('all', [rule]);

/** docs/dashboard.md, "Segments": the builder offers exactly the pairs the API evaluates. */
describe('the segment builder’s fields and operators', () => {
  it('offers every field the API knows', () => {
    const offered = FIELDS.map((f) => (f.value === 'custom_data' ? 'custom_data.<key>' : f.value)).sort();
    expect(offered).toEqual([...SEGMENT_FIELDS].sort());
  });

  const pairs = FIELDS.flatMap((f) => SEGMENT_OPERATORS.map((op) => [f.value, op] as const));
  it.each(pairs)('%s %s: offered exactly when the API takes it', (field, operator) => {
    const offered = OPERATORS[kindOf(field)].some(([op]) => op === operator);
    const result = parse(toApiRule(filled(field, operator)));
    if (offered) {
      expect(result).toEqual({ definition: expect.anything() });
    } else {
      expect(result).toEqual({ errors: { 'rules[0]': [expect.stringMatching(/does not apply/)] } });
    }
  });

  it.each(FIELDS.flatMap((f) => OPERATORS[f.kind].map(([op]) => [f.value, op] as const)))(
    '%s %s: a saved rule reads back as the same row',
    (field, operator) => {
      const rule = toApiRule(filled(field, operator));
      expect(toApiRule(fromApiRule(rule))).toEqual(rule);
    },
  );

  it('sends values typed as the field needs them', () => {
    expect(toApiRule({ ...newRow('is_active'), value: 'false' })).toEqual({ field: 'is_active', operator: 'equals', value: false });
    expect(toApiRule({ ...newRow('custom_data'), key: 'seats', operator: 'equals', valueType: 'number', value: '7' })).toEqual({
      field: 'custom_data.seats',
      operator: 'equals',
      value: 7,
    });
    expect(toApiRule({ ...newRow('custom_data'), key: 'seats', operator: 'equals', valueType: 'text', value: '7' })).toEqual({
      field: 'custom_data.seats',
      operator: 'equals',
      value: '7',
    });
    expect(toApiRule({ ...newRow('clicked_broadcast'), broadcast: '12', withinDays: '' })).toEqual({
      field: 'clicked_broadcast',
      operator: 'equals',
      value: 12,
    });
    expect(toApiRule({ ...newRow('tags'), operator: 'exists', value: 'left over' })).toEqual({ field: 'tags', operator: 'exists' });
    // What is not a number goes as typed, so the API's 422 names it.
    expect(toApiRule({ ...newRow('custom_data'), key: 'seats', operator: 'gt', value: 'many' }).value).toBe('many');
  });

  it('keeps a stored date with a time as written, so a save does not move it to midnight', () => {
    const rule = { field: 'created_at', operator: 'after', value: '2026-03-01T12:30:00.000Z' };
    expect(fromApiRule(rule).value).toBe('2026-03-01T12:30:00.000Z');
    expect(fromApiRule({ ...rule, value: '2026-03-01T00:00:00.000Z' }).value).toBe('2026-03-01');
  });

  it('keeps the operator and value when the field changes within its kind, and starts over across kinds', () => {
    const row = { ...newRow('email'), operator: 'contains', value: 'acme' };
    expect(withField(row, 'first_name')).toEqual({ ...row, field: 'first_name' });
    expect(withField(row, 'is_active')).toEqual(expect.objectContaining({ id: row.id, field: 'is_active', operator: 'equals', value: 'true' }));
  });
});
