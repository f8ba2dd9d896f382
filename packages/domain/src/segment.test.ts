import { parseSegmentDefinition, presentSegmentRule, referencedBroadcastIds } from './segment';

const errorsOf = (rules: unknown, match?: unknown) => {
  const result = parseSegmentDefinition(match, rules);
  return 'errors' in result ? result.errors : null;
};

describe('segment rules', () => {
  it('accepts every field kind with its operators, defaulting match to all', () => {
    const rules = [
      { field: 'email', operator: 'ends_with', value: '@example.com' },
      { field: 'first_name', operator: 'not_exists' },
      { field: 'tags', operator: 'includes', value: 'vip' },
      { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
      { field: 'custom_data.seats', operator: 'gt', value: 5 },
      { field: 'created_at', operator: 'after', value: '2026-01-01' },
      { field: 'confirmation_status', operator: 'equals', value: 'confirmed' },
      { field: 'is_active', operator: 'not_equals', value: false },
      { field: 'opened_broadcast', operator: 'equals', value: 12 },
      { field: 'clicked_broadcast', operator: 'equals', value: 'any', within_days: 30 },
    ];
    const result = parseSegmentDefinition(undefined, rules);
    if (!('definition' in result)) throw new Error(JSON.stringify(result.errors));
    expect(result.definition.match).toBe('all');
    expect(result.definition.rules.map((r) => r.kind)).toEqual([
      'text',
      'text',
      'tags',
      'custom',
      'custom',
      'date',
      'confirmation',
      'boolean',
      'engagement',
      'engagement',
    ]);
    expect(result.definition.rules.map(presentSegmentRule)).toEqual(
      rules.map((r) => (r.field === 'created_at' ? { ...r, value: '2026-01-01T00:00:00.000Z' } : r)),
    );
    expect(referencedBroadcastIds(result.definition)).toEqual([12]);
  });

  it.each([
    [[{ field: 'colour', operator: 'equals', value: 'red' }], 'rules[0]', 'field colour is not known'],
    [[{ field: 'custom_data.', operator: 'equals', value: 'x' }], 'rules[0]', 'field custom_data. is not known'],
    [[{ field: 'email', operator: 'resembles', value: 'x' }], 'rules[0]', 'operator resembles is not known'],
    [[{ field: 'tags', operator: 'equals', value: 'x' }], 'rules[0]', 'operator equals does not apply to tags'],
    [
      [
        { field: 'email', operator: 'contains', value: 'a' },
        { field: 'is_active', operator: 'equals', value: 'yes' },
      ],
      'rules[1]',
      'value must be true or false',
    ],
    [[{ field: 'custom_data.n', operator: 'gt', value: '5' }], 'rules[0]', 'value must be a number'],
    [[{ field: 'created_at', operator: 'before', value: 'yesterday' }], 'rules[0]', 'value must be an ISO 8601 date or datetime'],
    [[{ field: 'created_at', operator: 'before', value: '2026-02-30T25:00' }], 'rules[0]', 'value must be an ISO 8601 date or datetime'],
    [[{ field: 'opened_broadcast', operator: 'equals', value: 'some' }], 'rules[0]', 'value must be a broadcast id or "any"'],
    [[{ field: 'clicked_broadcast', operator: 'equals', value: 'any', within_days: 0 }], 'rules[0]', 'within_days must be an integer from 1 to 36500'],
    [[{ field: 'email', operator: 'equals', value: 'a', within_days: 3 }], 'rules[0]', 'within_days applies only to opened_broadcast and clicked_broadcast'],
    [[{ field: 'email', operator: 'equals', value: 'a', extra: 1 }], 'rules[0]', 'has an unknown key extra'],
    [[{ field: 'email', operator: 'equals', value: '' }], 'rules[0]', 'value must be a non-empty string of at most 1000 characters'],
    [['email'], 'rules[0]', 'must be an object with field, operator and value'],
    ['all', 'rules', 'must be an array of rules'],
  ])('refuses %j naming %s', (rules, key, message) => {
    expect(errorsOf(rules)).toEqual({ [key]: [message] });
  });

  it('refuses a match other than all or any, and more than 100 rules', () => {
    expect(errorsOf([], 'some')).toEqual({ match: ['must be all or any'] });
    const many = Array.from({ length: 101 }, () => ({ field: 'tags', operator: 'exists' }));
    expect(errorsOf(many)).toEqual({ rules: ['has too many rules (maximum is 100)'] });
  });
});
