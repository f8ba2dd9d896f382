import { MAX_SEGMENT_COST, parseSegmentDefinition, referencedBroadcastIds, segmentCost, type BroadcastStatus, type SegmentDefinition } from '@mailcast/domain';
import { NotFoundError, ValidationError } from '../errors';
import type { Repositories, Segment, SegmentRepository } from '../ports';

export const SEGMENT_NOT_FOUND = 'Segment not found';
export const SEGMENT_TARGETED = 'Segment is targeted by a scheduled or sending broadcast';
export const SEGMENT_IN_SEQUENCE = 'Segment is used by a sequence';
export const MAX_SEGMENT_NAME = 255;

/** The 422 of an evaluation stopped by its statement time-out (docs/segments.md, "Bounds"). */
export const segmentTooSlow = (timeoutMs: number) =>
  `Segment took longer than ${timeoutMs} ms to evaluate: narrow its rules (fewer or shorter contains, starts_with and ends_with values)`;

/** A broadcast in these statuses still reads its segments' rules, so they must stay (docs/segments.md). */
export const SEGMENT_BLOCKING_STATUSES: readonly BroadcastStatus[] = ['future_scheduled', 'scheduled', 'queueing', 'sending', 'paused'];

/** What a create or update may set; absent means "leave as it is". */
export interface SegmentFields {
  name?: string;
  description?: string | null;
  match?: unknown;
  rules?: unknown;
}

export function checkedName(name: string | undefined): string {
  const trimmed = name?.trim() ?? '';
  if (trimmed === '') throw ValidationError.forFields({ name: ["can't be blank"] });
  if (trimmed.length > MAX_SEGMENT_NAME) throw ValidationError.forFields({ name: [`is too long (maximum is ${MAX_SEGMENT_NAME} characters)`] });
  return trimmed;
}

/**
 * The rule set in normal form, or a 422 naming what cannot be evaluated (`rules[2]`). An
 * engagement rule naming a broadcast that is not the channel's is refused the same way, and so
 * is a rule set that would cost more than MAX_SEGMENT_COST to evaluate (docs/segments.md,
 * "Bounds"): it checks what is written, not what is stored, so segments saved before still read.
 */
export async function checkedDefinition(repositories: Repositories, channelId: number, match: unknown, rules: unknown): Promise<SegmentDefinition> {
  const parsed = parseSegmentDefinition(match, rules);
  if ('errors' in parsed) throw ValidationError.forFields(parsed.errors);
  const definition = parsed.definition;
  const cost = segmentCost(definition);
  if (cost > MAX_SEGMENT_COST) throw ValidationError.forFields({ rules: [costMessage(cost)] });
  for (const id of referencedBroadcastIds(definition)) {
    if ((await repositories.broadcasts.findById(channelId, id)) === null) {
      const index = definition.rules.findIndex((r) => r.kind === 'engagement' && r.broadcastId === id);
      throw ValidationError.forFields({ [`rules[${index}]`]: [`broadcast ${id} does not exist`] });
    }
  }
  return definition;
}

const costMessage = (cost: number) =>
  `cost ${cost} to evaluate, more than the maximum of ${MAX_SEGMENT_COST} (each rule costs 1, and a contains, starts_with or ends_with rule 1 more per character of its value)`;

/**
 * A segment saved before the bound may cost more than it allows: it is not evaluated at all,
 * since PostgreSQL checks its statement time-out between rows, not inside one row's pattern
 * matches (docs/segments.md, "Bounds").
 */
export function evaluable(segment: Segment): Segment {
  const cost = segmentCost(segment.definition);
  if (cost > MAX_SEGMENT_COST) throw new ValidationError(`Segment rules ${costMessage(cost)}: edit them to read the segment`);
  return segment;
}

export async function segmentOrNotFound(segments: SegmentRepository, channelId: number, id: number): Promise<Segment> {
  const segment = await segments.findById(channelId, id);
  if (segment === null) throw new NotFoundError(SEGMENT_NOT_FOUND);
  return segment;
}
