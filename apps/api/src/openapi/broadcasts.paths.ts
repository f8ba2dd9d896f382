import { HUMAN_TIMELINE_METRICS, TIMEFRAMES, TIMELINE_METRICS } from '@mailcast/domain';
import { authenticated, broadcastAction, BROADCASTS, type Json, ok, param, query, STATISTICS } from './operation';
import { ref } from './schemas';

export const BROADCAST_PATHS: Record<string, Json> = {
  '/api/v1/broadcasts': {
    get: authenticated({
      operationId: 'listBroadcasts',
      summary: 'List broadcasts',
      description: 'Most recently created first (ties: newest id first).',
      tag: BROADCASTS,
      permission: 'broadcasts_read',
      parameters: [param('limit'), param('offset')],
      responses: { '200': ok('A page of broadcasts.', ref('BroadcastList')) },
      errors: ['422'],
    }),
    post: authenticated({
      operationId: 'createBroadcast',
      summary: 'Create a broadcast',
      description:
        'Created as a draft. A blank subject is a 422 "Subject can\'t be blank". Subject, body and html_body are Liquid templates; invalid Liquid is a 422.',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('BroadcastCreateBody') },
      responses: { '201': ok('Created.', ref('BroadcastCreated')) },
      errors: ['422'],
    }),
  },
  '/api/v1/broadcasts/{id}': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcast',
      summary: 'Get a broadcast',
      tag: BROADCASTS,
      permission: 'broadcasts_read',
      responses: { '200': ok('The broadcast.', ref('Broadcast')) },
      errors: ['404'],
    }),
    patch: authenticated({
      operationId: 'updateBroadcast',
      summary: 'Update a broadcast',
      description: 'Only the fields given change. Only in draft or future_scheduled; otherwise 422 "Broadcast cannot be updated in current status".',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('BroadcastUpdateBody') },
      responses: { '200': ok('The updated broadcast.', ref('Broadcast')) },
      errors: ['404', '422'],
    }),
    delete: authenticated({
      operationId: 'deleteBroadcast',
      summary: 'Delete a broadcast',
      description: 'Only in draft or future_scheduled; otherwise 422 "Broadcast cannot be deleted in current status".',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      responses: { '200': ok('Deleted.', ref('Message')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/send_broadcast': {
    parameters: [param('id')],
    ...broadcastAction(
      'sendBroadcast',
      'is queued for immediate sending (status scheduled)',
      'Send a broadcast now',
      'From draft or failed; the broadcast needs a subject and a body, the channel an email server. 422 messages: "Broadcast is not ready to send", "Broadcast can only be sent from draft or failed status", "SMTP settings are not configured, please check your settings". Emits broadcast.scheduled.',
    ),
  },
  '/api/v1/broadcasts/{id}/schedule_broadcast': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'scheduleBroadcast',
      summary: 'Schedule a broadcast',
      description:
        'From draft or future_scheduled (a reschedule). The body may be omitted when both fields are already set on the broadcast. 422 messages: "Broadcast cannot be scheduled in current status", "Scheduled send time must be in the future", "Scheduled timezone is invalid". Emits broadcast.scheduled.',
      tag: BROADCASTS,
      permission: 'broadcasts_write',
      body: { schema: ref('ScheduleBody'), required: false },
      responses: { '200': ok('Scheduled (status future_scheduled).', ref('BroadcastScheduled')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/cancel_schedule': {
    parameters: [param('id')],
    ...broadcastAction(
      'cancelSchedule',
      'is back in draft',
      'Cancel a scheduled broadcast',
      'From future_scheduled; otherwise 422 "Broadcast is not scheduled".',
    ),
  },
  '/api/v1/broadcasts/{id}/pause_broadcast': {
    parameters: [param('id')],
    ...broadcastAction('pauseBroadcast', 'is paused', 'Pause a sending broadcast', 'Beyond the spec (docs/api-decisions.md). Emits broadcast.paused.'),
  },
  '/api/v1/broadcasts/{id}/resume_broadcast': {
    parameters: [param('id')],
    ...broadcastAction('resumeBroadcast', 'is sending again', 'Resume a paused broadcast', 'Beyond the spec (docs/api-decisions.md). Emits broadcast.sending.'),
  },
  '/api/v1/broadcasts/{id}/abort_broadcast': {
    parameters: [param('id')],
    ...broadcastAction(
      'abortBroadcast',
      'is aborted',
      'Abort a broadcast',
      'Beyond the spec (docs/api-decisions.md): stops sending for good. Emits broadcast.aborted.',
    ),
  },
  '/api/v1/broadcasts/{id}/statistics': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastStatistics',
      summary: 'Statistics summary of a broadcast',
      description:
        'Counts are of unique recipients. Rates are percentages from 0 to 100 with two decimals: delivery_rate over total_recipients, every other rate over sent; a zero denominator gives 0.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      responses: { '200': ok('The summary.', ref('StatisticsSummary')) },
      errors: ['404'],
    }),
  },
  '/api/v1/broadcasts/{id}/statistics/timeline': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastTimeline',
      summary: 'Timeline of a broadcast',
      description:
        'The window begins at begin_send_at floored to the interval (for a broadcast not yet sent: now minus the timeframe) and spans the timeframe. An unknown timeframe or metric is a 422.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      parameters: [
        query('timeframe', { type: 'string', enum: Object.keys(TIMEFRAMES), default: '24h' }, 'Window length; fixes the interval.'),
        query(
          'metrics',
          { type: 'string', default: TIMELINE_METRICS.join(',') },
          `Comma-separated subset of ${[...TIMELINE_METRICS, ...HUMAN_TIMELINE_METRICS].join(', ')}; default the first five (${HUMAN_TIMELINE_METRICS.join(' and ')}, opens and clicks not flagged as a machine, only when named).`,
        ),
      ],
      responses: { '200': ok('The timeline.', ref('Timeline')) },
      errors: ['404', '422'],
    }),
  },
  '/api/v1/broadcasts/{id}/statistics/links': {
    parameters: [param('id')],
    get: authenticated({
      operationId: 'getBroadcastLinks',
      summary: 'Link clicks of a broadcast',
      description: 'An unknown sort or order, or a limit below 1, is a 422; a limit above 500 is clamped to 500.',
      tag: STATISTICS,
      permission: 'broadcasts_read',
      parameters: [
        query('sort', { type: 'string', enum: ['total', 'unique'], default: 'total' }, 'Sort by total or unique clicks.'),
        query('order', { type: 'string', enum: ['desc', 'asc'], default: 'desc' }, 'Sort order.'),
        query('limit', { type: 'integer', minimum: 1, default: 100 }, 'Links returned; default 100, at most 500 (clamped).'),
      ],
      responses: { '200': ok('The links.', ref('LinkStatistics')) },
      errors: ['404', '422'],
    }),
  },
};
