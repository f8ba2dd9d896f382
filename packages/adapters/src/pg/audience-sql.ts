import type { ExcludedSegments } from '@mailcast/core';
import type { Knex } from 'knex';
import { audiencePredicate } from './segment-sql';

// A broadcast's topic and excluded segments over `subscribers s` (docs/topics.md, Audiences):
// the statements that build recipients, and the claim before each hand-off to SMTP, share them.

/**
 * "s receives the topic row t": the one definition, the SQL function receives_topic (migration
 * 20261201000001_topics_and_forms.js). The topic row is joined once per statement (a primary
 * key look-up), so the function reads its settings as columns and runs inline on each row.
 */
export const RECEIVES_TOPIC = `receives_topic(t.storage, t.custom_data_key, t.tag_name, t.unset_receives, s.tags, s.custom_data)`;

/** The join of a broadcast's topic by id, and the condition, when it has one; nothing otherwise. */
export function topicFilter(topicId: number | null): { join: string; condition: string; bindings: { topicId?: number } } {
  if (topicId === null) return { join: '', condition: '', bindings: {} };
  return { join: 'JOIN topics t ON t.id = :topicId', condition: ` AND ${RECEIVES_TOPIC}`, bindings: { topicId } };
}

/**
 * "s is in none of the excluded segments". IS NOT TRUE, not NOT: a rule over a missing value
 * (first_name = 'x' on a null first_name) is NULL, and NOT NULL would leave out a subscriber
 * who is in no excluded segment at all.
 */
export function exclusionFilter(db: Knex, excluded: ExcludedSegments | undefined): { condition: string; bindings: { excluded?: Knex.Raw } } {
  if (excluded === undefined || excluded.definitions.length === 0) return { condition: '', bindings: {} };
  const predicate = audiencePredicate(excluded.definitions, excluded.channelId, excluded.now);
  return { condition: ' AND (:excluded) IS NOT TRUE', bindings: { excluded: db.raw(predicate.sql, predicate.bindings) } };
}
