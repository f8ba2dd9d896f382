import { SEGMENT_FIELDS, SEGMENT_OPERATORS } from '@mailcast/domain';
import { arrayOf, closed, dateTime, integer, nestedOrFlat, nullableString, page, ref, requestSchema, string, warned, type Schema } from './schema-helpers';
import { segmentSchema } from '../http/segments/segments.schemas';

const segmentProperties: Record<string, Schema> = {
  id: integer(),
  name: string(),
  description: nullableString(),
  match: { type: 'string', enum: ['all', 'any'], description: 'all: every rule holds; any: at least one. No rules: every subscriber.' },
  rules: arrayOf(ref('SegmentRule')),
  created_at: dateTime(),
  updated_at: dateTime(),
};

const segmentInput = requestSchema(segmentSchema);

/** Segments and their rules. Spread into SCHEMAS by schemas.ts. */
export const SEGMENT_SCHEMAS: Record<string, Schema> = {
  SegmentRule: {
    type: 'object',
    description: `One condition. \`field\`: ${SEGMENT_FIELDS.join(', ')}. Text fields take equals, not_equals, contains, starts_with, ends_with (case-insensitive), exists, not_exists; tags: includes, excludes, exists, not_exists; custom_data.<key>: equals, not_equals, contains, starts_with, ends_with, gt, lt (numbers), exists, not_exists; created_at and subscribed_at: before, after (ISO 8601); confirmation_status: equals, not_equals (confirmed or unconfirmed); is_active: equals, not_equals (boolean); opened_broadcast and clicked_broadcast: equals (did) or not_equals (did not), value a broadcast id or "any", with optional within_days and human_only.`,
    properties: {
      field: string('A subscriber field, `custom_data.<key>`, or an engagement field.'),
      operator: { type: 'string', enum: [...SEGMENT_OPERATORS] },
      value: { description: 'Absent for exists and not_exists.', type: ['string', 'number', 'boolean'] },
      within_days: integer('Engagement rules only: within this many days before evaluation.'),
      human_only: { type: 'boolean', description: 'Engagement rules only: count only opens or clicks not flagged as a machine (docs/engagement.md).' },
    },
    required: ['field', 'operator'],
    additionalProperties: false,
  },
  Segment: warned(closed(segmentProperties)),
  SegmentList: page('Segment'),
  SegmentWithMembers: closed({
    ...segmentProperties,
    subscribers_count: integer('Members now.'),
    subscribers: arrayOf(ref('Subscriber'), 'The asked page of members.'),
    pagination: ref('Pagination'),
  }),
  SegmentInput: segmentInput,
  // Required on create by the use case, not by joi: update shares the fields.
  SegmentCreateInput: { ...segmentInput, required: ['name'] },
  SegmentCreateBody: nestedOrFlat('segment', 'SegmentCreateInput'),
  SegmentUpdateBody: nestedOrFlat('segment', 'SegmentInput'),
  // The builder may post the whole form it would save: name and description are taken and unused.
  SegmentCountBody: nestedOrFlat('segment', 'SegmentInput'),
  SegmentCount: warned(
    closed({ subscribers_count: integer('Subscribers of the channel matching the rules now (inactive and unconfirmed ones included, as for a segment).') }),
  ),
};
