import { arrayOf, boolean, closed, integer, nullableDateTime, nullableString, ref, string, type Schema } from './schema-helpers';

const nullableInteger = (description: string): Schema => ({ type: ['integer', 'null'], description });

/** A subscriber's history (docs/subscribers.md, "History"). Spread into SCHEMAS by schemas.ts. */
export const SUBSCRIBER_HISTORY_SCHEMAS: Record<string, Schema> = {
  SubscriberHistoryEntry: closed({
    kind: { type: 'string', enum: ['broadcast', 'sequence', 'transactional'] },
    id: nullableInteger("The broadcast's id, the sequence step's (null once the step is deleted), or the transactional's."),
    sequence_id: nullableInteger('The sequence of a sequence email; null for the other kinds.'),
    subject: nullableString('The subject as written on the broadcast, the step or the transactional.'),
    status: {
      type: 'string',
      enum: ['queued', 'sent', 'bounced', 'failed', 'skipped'],
      description:
        'queued: not yet handed over; sent: accepted by the SMTP server; bounced: refused permanently; failed: given up; skipped: not sent (suppressed, unsubscribed or excluded by the time it would go).',
    },
    sent_at: nullableDateTime('When the SMTP server answered.'),
    opened: boolean('At least one open was recorded.'),
    opened_at: nullableDateTime('The first open.'),
    clicked: boolean('At least one click was recorded.'),
    clicked_at: nullableDateTime('The first click.'),
    opened_by: ref('HistoryEngagedBy'),
    clicked_by: ref('HistoryEngagedBy'),
    bounced: boolean(),
    bounce_reason: nullableString("The SMTP server's answer, for a bounce."),
    message_id: nullableString('The Message-ID the email was sent with (null for one never built).'),
  }),
  HistoryEngagedBy: closed(
    {
      human: boolean("At least one was a person's (machine: false)."),
      machine: boolean("At least one was a machine's: a bot list's agent, a proxy's prefetch, a scanner or a HEAD request."),
    },
    'Whose the recorded opens (or clicks) were; both false when none was recorded or all predate the classification.',
  ),
  SubscriberHistory: closed({
    broadcast_channel_id: integer(),
    email: string('The subscriber, by address.'),
    history: arrayOf(ref('SubscriberHistoryEntry'), 'Newest first, 100 a page.'),
    pagination: ref('Pagination'),
  }),
};
