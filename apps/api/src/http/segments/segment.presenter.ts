import type { Segment } from '@mailcast/core';
import { presentSegmentRule } from '@mailcast/domain';

/** A segment as the API shows it: its rules in the shape they were sent in. */
export function presentSegment(s: Segment) {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    match: s.definition.match,
    rules: s.definition.rules.map(presentSegmentRule),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
