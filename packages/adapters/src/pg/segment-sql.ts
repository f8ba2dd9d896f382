import type { SegmentDefinition, SegmentRule } from '@mailcast/domain';
import type { Knex } from 'knex';

/**
 * Segment rules compiled to one SQL predicate over `subscribers s` (docs/segments.md), so the
 * database evaluates membership on its indexes: tags and custom_data equality by containment
 * (the GIN indexes), email equality on the unique key, engagement through the partial indexes
 * of opened and clicked recipients. Column names come from the domain's closed field list;
 * every value is a bound parameter.
 */
export interface SqlFragment {
  sql: string;
  bindings: Knex.Value[];
}

const frag = (sql: string, ...bindings: Knex.Value[]): SqlFragment => ({ sql, bindings });

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

const PATTERNS: Record<string, (v: string) => string> = {
  contains: (v) => `%${escapeLike(v)}%`,
  starts_with: (v) => `${escapeLike(v)}%`,
  ends_with: (v) => `%${escapeLike(v)}`,
};

const negate = (f: SqlFragment): SqlFragment => ({ sql: `NOT (${f.sql})`, bindings: f.bindings });

// Text comparisons ignore case; email is stored lower-cased, so its equality stays on the index.
function textRule(rule: Extract<SegmentRule, { kind: 'text' }>): SqlFragment {
  const col = `s.${rule.field}`;
  const value = rule.value ?? '';
  const pattern = PATTERNS[rule.operator];
  if (pattern) return frag(`${col} ILIKE ?`, pattern(value));
  switch (rule.operator) {
    case 'equals':
      return rule.field === 'email' ? frag('s.email = lower(?)', value) : frag(`lower(${col}) = lower(?)`, value);
    case 'not_equals':
      return frag(`lower(${col}) IS DISTINCT FROM lower(?)`, value);
    case 'exists':
      return frag(`coalesce(${col}, '') <> ''`);
    default:
      return frag(`coalesce(${col}, '') = ''`);
  }
}

function customRule(rule: Extract<SegmentRule, { kind: 'custom' }>): SqlFragment {
  const { key, value } = rule;
  const pattern = PATTERNS[rule.operator];
  if (pattern) return frag(`(s.custom_data ->> ?) ILIKE ?`, key, pattern(String(value)));
  switch (rule.operator) {
    case 'equals':
      return frag('s.custom_data @> ?::jsonb', JSON.stringify({ [key]: value }));
    case 'not_equals':
      return negate(frag('s.custom_data @> ?::jsonb', JSON.stringify({ [key]: value })));
    case 'gt':
    case 'lt':
      // Only numbers compare; the CASE keeps a text value from reaching the cast.
      return frag(
        `(CASE WHEN jsonb_typeof(s.custom_data -> ?) = 'number' THEN (s.custom_data ->> ?)::numeric END) ${rule.operator === 'gt' ? '>' : '<'} ?`,
        key,
        key,
        value,
      );
    case 'exists':
      return frag(`coalesce(jsonb_typeof(s.custom_data -> ?), 'null') <> 'null'`, key);
    default:
      return frag(`coalesce(jsonb_typeof(s.custom_data -> ?), 'null') = 'null'`, key);
  }
}

function engagementRule(rule: Extract<SegmentRule, { kind: 'engagement' }>, channelId: number, now: Date): SqlFragment {
  const col = rule.field === 'opened_broadcast' ? 'br.opened_at' : 'br.clicked_at';
  const since = rule.withinDays === null ? null : new Date(now.getTime() - rule.withinDays * 86_400_000);
  const timeWindow = since === null ? frag('') : frag(` AND ${col} >= ?`, since);
  // docs/engagement.md: human_only also wants a first open or click classified as a person's;
  // within_days still reads the recipient's first open or click, as without it.
  const human = rule.humanOnly
    ? ` AND EXISTS (SELECT 1 FROM email_event_firsts f WHERE f.recipient_id = br.id AND f.kind = '${rule.field === 'opened_broadcast' ? 'human_opened' : 'human_clicked'}' AND f.link_id = 0)`
    : '';
  const window = frag(`${timeWindow.sql}${human}`, ...timeWindow.bindings);
  const inner =
    rule.broadcastId !== null
      ? frag(
          `EXISTS (SELECT 1 FROM broadcast_recipients br WHERE br.broadcast_id = ? AND br.subscriber_id = s.id AND ${col} IS NOT NULL${window.sql})`,
          rule.broadcastId,
          ...window.bindings,
        )
      : frag(
          `EXISTS (SELECT 1 FROM broadcast_recipients br JOIN broadcasts b ON b.id = br.broadcast_id
                    WHERE br.subscriber_id = s.id AND b.channel_id = ? AND ${col} IS NOT NULL${window.sql})`,
          channelId,
          ...window.bindings,
        );
  return rule.operator === 'equals' ? inner : negate(inner);
}

function rulePredicate(rule: SegmentRule, channelId: number, now: Date): SqlFragment {
  switch (rule.kind) {
    case 'text':
      return textRule(rule);
    case 'tags':
      if (rule.operator === 'includes') return frag('s.tags @> ARRAY[?]::text[]', rule.value);
      if (rule.operator === 'excludes') return negate(frag('s.tags @> ARRAY[?]::text[]', rule.value));
      return frag(rule.operator === 'exists' ? 'cardinality(s.tags) > 0' : 'cardinality(s.tags) = 0');
    case 'custom':
      return customRule(rule);
    case 'date':
      return frag(`s.${rule.field} ${rule.operator === 'before' ? '<' : '>'} ?`, rule.value);
    case 'confirmation': {
      const confirmed = (rule.value === 'confirmed') === (rule.operator === 'equals');
      return frag(confirmed ? 's.confirmed_at IS NOT NULL' : 's.confirmed_at IS NULL');
    }
    case 'boolean':
      return frag(rule.operator === 'equals' ? 's.is_active = ?' : 's.is_active <> ?', rule.value);
    case 'engagement':
      return engagementRule(rule, channelId, now);
  }
}

/** One segment's rules; a segment without rules holds every subscriber of the channel. */
export function segmentPredicate(definition: SegmentDefinition, channelId: number, now: Date): SqlFragment {
  if (definition.rules.length === 0) return frag('TRUE');
  const parts = definition.rules.map((r) => rulePredicate(r, channelId, now));
  return {
    sql: parts.map((p) => `(${p.sql})`).join(definition.match === 'all' ? ' AND ' : ' OR '),
    bindings: parts.flatMap((p) => p.bindings),
  };
}

/** The union of several segments: a subscriber in any of them, once (no segment: nobody). */
export function audiencePredicate(definitions: readonly SegmentDefinition[], channelId: number, now: Date): SqlFragment {
  if (definitions.length === 0) return frag('FALSE');
  const parts = definitions.map((d) => segmentPredicate(d, channelId, now));
  return { sql: parts.map((p) => `(${p.sql})`).join(' OR '), bindings: parts.flatMap((p) => p.bindings) };
}
