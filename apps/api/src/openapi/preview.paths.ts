import { authenticated, BROADCASTS, type Json, ok, param } from './operation';
import { ref } from './schemas';

/** The dashboard's preview of a broadcast for one subscriber (docs/dashboard.md, "Preview"). */
export const PREVIEW_PATHS: Record<string, Json> = {
  '/api/v1/broadcasts/{id}/preview': {
    parameters: [param('id')],
    post: authenticated({
      operationId: 'previewBroadcast',
      summary: 'Preview a broadcast for a subscriber',
      description:
        'The subject, text and HTML as the subscriber would receive them (Liquid rendered with their data, preheader and unsubscribe link), in any status. Opens and clicks are not tracked: nothing is recorded and the links are the original ones; the unsubscribe link is a placeholder. The token also needs `subscribers_read` (the answer shows the subscriber\'s data). Unknown subscriber: 404 "Subscriber not found"; no email: 422 "email parameter is required"; a template that fails to render: 422 "Broadcast cannot be rendered: …".',
      tag: BROADCASTS,
      permission: 'broadcasts_read',
      body: { schema: ref('EmailBody') },
      responses: { '200': ok('The rendered email.', ref('BroadcastPreview')) },
      errors: ['404', '422'],
    }),
  },
};
