/**
 * The segment rule builder's model (docs/dashboard.md, "Segments"): which fields and operators it
 * offers, and how one row on screen becomes the API's `{field, operator, value}` and back. The
 * table mirrors the API's (docs/segments.md, "Rules"); apps/dashboard/src/segment-rules.test.ts
 * checks every pair against the API's own validation. It checks nothing else: a value the API
 * refuses is sent as typed, and the API's 422 is shown beside the row.
 */

export type FieldKind = 'text' | 'tags' | 'custom' | 'date' | 'confirmation' | 'boolean' | 'engagement';

/** `custom_data` stands for `custom_data.<key>`, the key typed beside it. */
export const FIELDS: ReadonlyArray<{ value: string; label: string; kind: FieldKind }> = [
  { value: 'email', label: 'Email', kind: 'text' },
  { value: 'first_name', label: 'First name', kind: 'text' },
  { value: 'last_name', label: 'Last name', kind: 'text' },
  { value: 'source', label: 'Source', kind: 'text' },
  { value: 'tags', label: 'Tags', kind: 'tags' },
  { value: 'custom_data', label: 'Custom field', kind: 'custom' },
  { value: 'created_at', label: 'Created', kind: 'date' },
  { value: 'subscribed_at', label: 'Subscribed', kind: 'date' },
  { value: 'confirmation_status', label: 'Confirmation', kind: 'confirmation' },
  { value: 'is_active', label: 'Active', kind: 'boolean' },
  { value: 'opened_broadcast', label: 'Opened a broadcast', kind: 'engagement' },
  { value: 'clicked_broadcast', label: 'Clicked a broadcast', kind: 'engagement' },
];

type Operator = readonly [operator: string, label: string];
const TEXT_MATCH: Operator[] = [
  ['contains', 'contains'],
  ['starts_with', 'starts with'],
  ['ends_with', 'ends with'],
];
const PRESENCE: Operator[] = [
  ['exists', 'is set'],
  ['not_exists', 'is not set'],
];

/** The operators each kind of field takes, in the order offered (the first is the default). */
export const OPERATORS: Readonly<Record<FieldKind, readonly Operator[]>> = {
  text: [['equals', 'is'], ['not_equals', 'is not'], ...TEXT_MATCH, ...PRESENCE],
  tags: [
    ['includes', 'includes'],
    ['excludes', 'excludes'],
    ['exists', 'has any tag'],
    ['not_exists', 'has no tag'],
  ],
  custom: [['equals', 'is'], ['not_equals', 'is not'], ...TEXT_MATCH, ['gt', 'is greater than'], ['lt', 'is less than'], ...PRESENCE],
  date: [
    ['before', 'before'],
    ['after', 'after'],
  ],
  confirmation: [
    ['equals', 'is'],
    ['not_equals', 'is not'],
  ],
  boolean: [
    ['equals', 'is'],
    ['not_equals', 'is not'],
  ],
  engagement: [
    ['equals', 'did'],
    ['not_equals', 'did not'],
  ],
};

/** How a custom field's equals / not_equals value is sent: JSON equality tells "7" from 7. */
export type ValueType = 'text' | 'number' | 'boolean';

/** One row of the builder, every input as typed. */
export interface RuleRow {
  /** Stable across edits, so removing a row does not move focus or values to its neighbour. */
  id: number;
  field: string;
  key: string;
  operator: string;
  value: string;
  valueType: ValueType;
  /** Engagement: `any` or a broadcast id. */
  broadcast: string;
  withinDays: string;
}

/** A rule as the API takes and answers it. */
export interface ApiRule {
  field: string;
  operator: string;
  value?: string | number | boolean;
  within_days?: number | string;
}

export const kindOf = (field: string): FieldKind => FIELDS.find((f) => f.value === field)?.kind ?? 'text';

export const takesValue = (operator: string): boolean => operator !== 'exists' && operator !== 'not_exists';

let nextId = 1;
export function newRow(field = 'tags'): RuleRow {
  return {
    id: nextId++,
    field,
    key: '',
    operator: OPERATORS[kindOf(field)][0]![0],
    value: defaultValue(kindOf(field)),
    valueType: 'text',
    broadcast: 'any',
    withinDays: '',
  };
}

function defaultValue(kind: FieldKind): string {
  if (kind === 'boolean') return 'true';
  if (kind === 'confirmation') return 'confirmed';
  return '';
}

/** Another field: the operator and value stay when the kind does (email → first name), else start over. */
export function withField(row: RuleRow, field: string): RuleRow {
  if (kindOf(field) === kindOf(row.field)) return { ...row, field };
  return { ...newRow(field), id: row.id };
}

/** A whole day is midnight UTC to the API (docs/segments.md, "Rules"): a date input shows it as that day. */
export const isWholeDay = (value: string): boolean => value === '' || /^\d{4}-\d{2}-\d{2}(T00:00(:00(\.0+)?)?(Z|\+00:?00)?)?$/.test(value);

/** A number when the text is one, else the text itself, so the API names what is wrong with it. */
function numberOrText(text: string): number | string {
  return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
}

export function toApiRule(row: RuleRow): ApiRule {
  const kind = kindOf(row.field);
  const field = kind === 'custom' ? `custom_data.${row.key.trim()}` : row.field;
  const rule: ApiRule = { field, operator: row.operator };
  if (kind === 'engagement') {
    rule.value = row.broadcast === 'any' ? 'any' : numberOrText(row.broadcast);
    if (row.withinDays.trim() !== '') rule.within_days = numberOrText(row.withinDays);
    return rule;
  }
  if (!takesValue(row.operator)) return rule;
  if (kind === 'boolean') rule.value = row.value === 'true';
  else if (kind === 'custom' && (row.operator === 'gt' || row.operator === 'lt')) rule.value = numberOrText(row.value);
  else if (kind === 'custom' && (row.operator === 'equals' || row.operator === 'not_equals') && row.valueType !== 'text') {
    rule.value = row.valueType === 'boolean' ? row.value === 'true' : numberOrText(row.value);
  } else rule.value = row.value;
  return rule;
}

export function fromApiRule(rule: ApiRule): RuleRow {
  const custom = rule.field.startsWith('custom_data.');
  const row: RuleRow = { ...newRow(custom ? 'custom_data' : rule.field), operator: rule.operator };
  if (custom) row.key = rule.field.slice('custom_data.'.length);
  const kind = kindOf(row.field);
  if (kind === 'engagement') {
    row.broadcast = String(rule.value ?? 'any');
    row.withinDays = rule.within_days === undefined || rule.within_days === null ? '' : String(rule.within_days);
    return row;
  }
  if (rule.value === undefined || rule.value === null) return row;
  if (typeof rule.value === 'boolean') row.valueType = kind === 'custom' ? 'boolean' : row.valueType;
  if (typeof rule.value === 'number' && kind === 'custom' && (rule.operator === 'equals' || rule.operator === 'not_equals')) row.valueType = 'number';
  // A stored date is an instant: shown as its day when it is midnight UTC, else as written.
  row.value = kind === 'date' && isWholeDay(String(rule.value)) ? String(rule.value).slice(0, 10) : String(rule.value);
  return row;
}

/**
 * A row still being filled in: the live count waits for it rather than asking the API about
 * a half-typed rule (a save still sends it, and shows the API's answer).
 */
export function isIncomplete(row: RuleRow): boolean {
  const kind = kindOf(row.field);
  if (kind === 'custom' && row.key.trim() === '') return true;
  if (kind === 'engagement') return row.broadcast.trim() === '';
  return takesValue(row.operator) && row.value.trim() === '';
}

/** A rule in words, for the segment's page: "Tags includes vip". */
export function describeRule(rule: ApiRule): string {
  const custom = rule.field.startsWith('custom_data.');
  const field = custom ? 'custom_data' : rule.field;
  const kind = kindOf(field);
  const label = custom ? `Custom field ${rule.field.slice('custom_data.'.length)}` : (FIELDS.find((f) => f.value === field)?.label ?? rule.field);
  const operator = OPERATORS[kind].find(([op]) => op === rule.operator)?.[1] ?? rule.operator;
  if (kind === 'engagement') {
    const what = rule.field === 'opened_broadcast' ? 'open' : 'click';
    const target = rule.value === 'any' ? 'any broadcast' : `broadcast #${String(rule.value)}`;
    const within = rule.within_days === undefined || rule.within_days === null ? '' : ` within ${String(rule.within_days)} days`;
    return `${operator === 'did' ? 'Did' : 'Did not'} ${what} ${target}${within}`;
  }
  if (!takesValue(rule.operator)) return `${label} ${operator}`;
  const value = kind === 'date' && isWholeDay(String(rule.value)) ? String(rule.value).slice(0, 10) : JSON.stringify(rule.value);
  return `${label} ${operator} ${value}`;
}
