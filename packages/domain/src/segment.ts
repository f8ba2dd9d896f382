/**
 * Segment rules (docs/segments.md): which subscribers of a channel a segment holds, as data the
 * adapters compile to SQL. This file only decides whether a rule set can be evaluated and puts
 * it in one normal form; an invalid rule is named by its position (`rules[2]`).
 */

export const SEGMENT_MATCHES = ['all', 'any'] as const;
export type SegmentMatch = (typeof SEGMENT_MATCHES)[number];

export const SEGMENT_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'starts_with',
  'ends_with',
  'includes',
  'excludes',
  'gt',
  'lt',
  'before',
  'after',
  'exists',
  'not_exists',
] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

/** What a field holds, which decides the operators and values it takes. */
export type SegmentFieldKind = 'text' | 'tags' | 'custom' | 'date' | 'confirmation' | 'boolean' | 'engagement';

const FIELD_KINDS: Readonly<Record<string, SegmentFieldKind>> = {
  email: 'text',
  first_name: 'text',
  last_name: 'text',
  source: 'text',
  tags: 'tags',
  created_at: 'date',
  subscribed_at: 'date',
  confirmation_status: 'confirmation',
  is_active: 'boolean',
  opened_broadcast: 'engagement',
  clicked_broadcast: 'engagement',
};

export const SEGMENT_FIELDS = [...Object.keys(FIELD_KINDS), 'custom_data.<key>'] as const;

const STRING_MATCH = ['contains', 'starts_with', 'ends_with'] as const;
const PRESENCE = ['exists', 'not_exists'] as const;

const OPERATORS_BY_KIND: Readonly<Record<SegmentFieldKind, readonly SegmentOperator[]>> = {
  text: ['equals', 'not_equals', ...STRING_MATCH, ...PRESENCE],
  tags: ['includes', 'excludes', ...PRESENCE],
  custom: ['equals', 'not_equals', ...STRING_MATCH, 'gt', 'lt', ...PRESENCE],
  date: ['before', 'after'],
  confirmation: ['equals', 'not_equals'],
  boolean: ['equals', 'not_equals'],
  // equals: did open (click) it; not_equals: did not.
  engagement: ['equals', 'not_equals'],
};

/** One rule in normal form: values typed as the field's kind needs them. */
export type SegmentRule =
  | { kind: 'text'; field: 'email' | 'first_name' | 'last_name' | 'source'; operator: SegmentOperator; value: string | null }
  | { kind: 'tags'; field: 'tags'; operator: SegmentOperator; value: string | null }
  | { kind: 'custom'; field: string; key: string; operator: SegmentOperator; value: string | number | boolean | null }
  | { kind: 'date'; field: 'created_at' | 'subscribed_at'; operator: SegmentOperator; value: Date }
  | { kind: 'confirmation'; field: 'confirmation_status'; operator: SegmentOperator; value: 'confirmed' | 'unconfirmed' }
  | { kind: 'boolean'; field: 'is_active'; operator: SegmentOperator; value: boolean }
  | {
      kind: 'engagement';
      field: 'opened_broadcast' | 'clicked_broadcast';
      operator: SegmentOperator;
      /** A broadcast id, or null for any broadcast of the channel. */
      broadcastId: number | null;
      withinDays: number | null;
      /** Only opens or clicks classified as a person's count (docs/engagement.md). */
      humanOnly: boolean;
    };

export interface SegmentDefinition {
  match: SegmentMatch;
  rules: SegmentRule[];
}

export const MAX_SEGMENT_RULES = 100;
const MAX_TEXT = 1000;
const MAX_KEY = 255;
const MAX_WITHIN_DAYS = 36_500;
const RULE_KEYS = new Set(['field', 'operator', 'value', 'within_days', 'human_only']);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

type Result = { rule: SegmentRule } | { error: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const fail = (error: string): Result => ({ error });

function kindOf(field: string): SegmentFieldKind | null {
  if (field.startsWith('custom_data.')) {
    const key = field.slice('custom_data.'.length);
    return key.length > 0 && key.length <= MAX_KEY ? 'custom' : null;
  }
  return Object.prototype.hasOwnProperty.call(FIELD_KINDS, field) ? FIELD_KINDS[field]! : null;
}

function textValue(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT ? value : null;
}

function engagementRule(field: 'opened_broadcast' | 'clicked_broadcast', operator: SegmentOperator, raw: Record<string, unknown>): Result {
  const value = raw.value;
  let broadcastId: number | null = null;
  if (value !== 'any') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      return fail('value must be a broadcast id or "any"');
    }
    broadcastId = value;
  }
  const within = raw.within_days;
  if (within !== undefined && within !== null) {
    if (typeof within !== 'number' || !Number.isSafeInteger(within) || within < 1 || within > MAX_WITHIN_DAYS) {
      return fail(`within_days must be an integer from 1 to ${MAX_WITHIN_DAYS}`);
    }
  }
  const human = raw.human_only;
  if (human !== undefined && human !== null && typeof human !== 'boolean') return fail('human_only must be true or false');
  return { rule: { kind: 'engagement', field, operator, broadcastId, withinDays: typeof within === 'number' ? within : null, humanOnly: human === true } };
}

function parseRule(raw: unknown): Result {
  if (!isObject(raw)) return fail('must be an object with field, operator and value');
  const unknownKey = Object.keys(raw).find((k) => !RULE_KEYS.has(k));
  if (unknownKey !== undefined) return fail(`has an unknown key ${unknownKey}`);
  const { field, operator, value } = raw;
  if (typeof field !== 'string') return fail('field must be a string');
  const kind = kindOf(field);
  if (kind === null) return fail(`field ${field} is not known`);
  if (typeof operator !== 'string' || !(SEGMENT_OPERATORS as readonly string[]).includes(operator)) {
    return fail(`operator ${String(operator)} is not known`);
  }
  const op = operator as SegmentOperator;
  if (!OPERATORS_BY_KIND[kind].includes(op)) return fail(`operator ${op} does not apply to ${field}`);
  if (raw.within_days !== undefined && kind !== 'engagement') return fail('within_days applies only to opened_broadcast and clicked_broadcast');
  if (raw.human_only !== undefined && kind !== 'engagement') return fail('human_only applies only to opened_broadcast and clicked_broadcast');
  const presence = op === 'exists' || op === 'not_exists';

  switch (kind) {
    case 'text':
    case 'tags': {
      if (presence) return { rule: { kind, field, operator: op, value: null } as SegmentRule };
      const text = textValue(value);
      if (text === null) return fail(`value must be a non-empty string of at most ${MAX_TEXT} characters`);
      return { rule: { kind, field, operator: op, value: text } as SegmentRule };
    }
    case 'custom': {
      const key = field.slice('custom_data.'.length);
      if (presence) return { rule: { kind, field, key, operator: op, value: null } };
      if (op === 'gt' || op === 'lt') {
        if (typeof value !== 'number' || !Number.isFinite(value)) return fail('value must be a number');
        return { rule: { kind, field, key, operator: op, value } };
      }
      if (op === 'equals' || op === 'not_equals') {
        const ok =
          typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= MAX_TEXT);
        if (!ok) return fail('value must be a string, a number or true or false');
        return { rule: { kind, field, key, operator: op, value: value as string | number | boolean } };
      }
      const text = textValue(value);
      if (text === null) return fail(`value must be a non-empty string of at most ${MAX_TEXT} characters`);
      return { rule: { kind, field, key, operator: op, value: text } };
    }
    case 'date': {
      const at = typeof value === 'string' && ISO_DATE.test(value) ? new Date(value) : null;
      if (at === null || Number.isNaN(at.getTime())) return fail('value must be an ISO 8601 date or datetime');
      return { rule: { kind, field: field as 'created_at' | 'subscribed_at', operator: op, value: at } };
    }
    case 'confirmation':
      if (value !== 'confirmed' && value !== 'unconfirmed') return fail('value must be confirmed or unconfirmed');
      return { rule: { kind, field: 'confirmation_status', operator: op, value } };
    case 'boolean':
      if (typeof value !== 'boolean') return fail('value must be true or false');
      return { rule: { kind, field: 'is_active', operator: op, value } };
    case 'engagement':
      return engagementRule(field as 'opened_broadcast' | 'clicked_broadcast', op, raw);
  }
}

/**
 * A rule set as sent (`match`, `rules`) in normal form, or the errors keyed by what failed:
 * `match`, `rules`, or `rules[i]` for the i-th rule (0-based, as the array is indexed).
 */
export function parseSegmentDefinition(match: unknown, rules: unknown): { definition: SegmentDefinition } | { errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  if (match !== undefined && match !== 'all' && match !== 'any') errors.match = ['must be all or any'];
  if (!Array.isArray(rules)) {
    errors.rules = ['must be an array of rules'];
    return { errors };
  }
  if (rules.length > MAX_SEGMENT_RULES) errors.rules = [`has too many rules (maximum is ${MAX_SEGMENT_RULES})`];
  const parsed: SegmentRule[] = [];
  rules.forEach((raw, i) => {
    const result = parseRule(raw);
    if ('error' in result) errors[`rules[${i}]`] = [result.error];
    else parsed.push(result.rule);
  });
  if (Object.keys(errors).length > 0) return { errors };
  return { definition: { match: (match as SegmentMatch | undefined) ?? 'all', rules: parsed } };
}

/** The rule as the API shows it: the request's own shape, dates as ISO 8601. */
export function presentSegmentRule(rule: SegmentRule): {
  field: string;
  operator: SegmentOperator;
  value?: unknown;
  within_days?: number;
  human_only?: boolean;
} {
  switch (rule.kind) {
    case 'engagement':
      return {
        field: rule.field,
        operator: rule.operator,
        value: rule.broadcastId ?? 'any',
        ...(rule.withinDays !== null ? { within_days: rule.withinDays } : {}),
        ...(rule.humanOnly ? { human_only: true } : {}),
      };
    case 'date':
      return { field: rule.field, operator: rule.operator, value: rule.value.toISOString() };
    default:
      return rule.value === null ? { field: rule.field, operator: rule.operator } : { field: rule.field, operator: rule.operator, value: rule.value };
  }
}

/**
 * What a rule set may cost to evaluate, in the unit of segmentCost (docs/segments.md, "Bounds").
 * A substring match (`contains`, `starts_with`, `ends_with`) costs PostgreSQL up to the value's
 * length in comparisons per character of the text it scans, so its value's length is its price;
 * 2,000 holds, say, twenty substring rules of 99 characters, or a hundred plain rules.
 */
export const MAX_SEGMENT_COST = 2_000;

/** Each rule counts 1, and a substring rule 1 more per character of its value. */
export function segmentCost(definition: SegmentDefinition): number {
  return definition.rules.reduce((cost, rule) => {
    const substring = rule.operator === 'contains' || rule.operator === 'starts_with' || rule.operator === 'ends_with';
    return cost + 1 + (substring && 'value' in rule && rule.value !== null ? String(rule.value).length : 0);
  }, 0);
}

/** The broadcasts an engagement rule names, to check they are the channel's. */
export function referencedBroadcastIds(definition: SegmentDefinition): number[] {
  const ids = definition.rules.flatMap((r) => (r.kind === 'engagement' && r.broadcastId !== null ? [r.broadcastId] : []));
  return [...new Set(ids)];
}
