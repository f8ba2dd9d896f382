import { pageQuerySchema } from '../http/segments/segments.schemas';
import { authenticated, type Json, ok, param, SEGMENTS } from './operation';
import { queryParameters } from './schema-helpers';
import { ref } from './schemas';

const RULES_422 =
  'A rule set that cannot be evaluated (unknown field or operator, a value of the wrong type, a broadcast that is not the channel\'s) is a 422 naming the rule: `{"errors": {"rules[2]": ["operator resembles is not known"]}}`. Blank name: 422 on `name`.';

export const SEGMENT_PATHS: Record<string, Json> = {
  '/api/v1/segments.json': {
    get: authenticated({
      operationId: 'listSegments',
      summary: 'List segments',
      description: 'Most recently created first; members are not counted here (read one segment for its count).',
      tag: SEGMENTS,
      permission: 'segments_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of segments.', ref('SegmentList')) },
      errors: ['422'],
    }),
  },
  '/api/v1/segments': {
    post: authenticated({
      operationId: 'createSegment',
      summary: 'Create a segment',
      description: RULES_422,
      tag: SEGMENTS,
      permission: 'segments_write',
      body: { schema: ref('SegmentCreateBody') },
      responses: { '201': ok('Created.', ref('Segment')) },
      errors: ['422'],
    }),
  },
  '/api/v1/segments/count': {
    post: authenticated({
      operationId: 'countSegmentRules',
      summary: 'Count the members of unsaved rules',
      description: `How many of the channel's subscribers match \`match\` and \`rules\` now, without saving a segment (a rule builder's live count). The rules are checked as a create checks them and counted as a segment's read counts (the same cost bound and time-out). \`name\` and \`description\` may be sent and are not used. ${RULES_422.replace(' Blank name: 422 on `name`.', '')}`,
      tag: SEGMENTS,
      permission: 'segments_read',
      body: { schema: ref('SegmentCountBody') },
      responses: { '200': ok('The count.', ref('SegmentCount')) },
      errors: ['422'],
    }),
  },
  '/api/v1/segments/{id}.json': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getSegment',
      summary: 'Get a segment with its members',
      description:
        'The members are the channel\'s subscribers matching the rules now: `subscribers_count` is counted at this read, `subscribers` is the asked page of them (250 a page, in subscriber id order). Unknown: 404 "Segment not found".',
      tag: SEGMENTS,
      permission: 'segments_read',
      parameters: queryParameters(pageQuerySchema),
      responses: { '200': ok('The segment, its count and a page of members.', ref('SegmentWithMembers')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/segments/{id}': {
    parameters: [param('id')],
    patch: authenticated({
      operationId: 'updateSegment',
      summary: 'Update a segment',
      description: `Only the fields given change; \`rules\` replaces the whole rule list. ${RULES_422}`,
      tag: SEGMENTS,
      permission: 'segments_write',
      body: { schema: ref('SegmentUpdateBody') },
      responses: { '200': ok('The segment.', ref('Segment')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteSegment',
      summary: 'Delete a segment',
      description:
        'A segment that a scheduled, sending or paused broadcast targets cannot be deleted: 422 "Segment is targeted by a scheduled or sending broadcast".',
      tag: SEGMENTS,
      permission: 'segments_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
};
