import type { Broadcast, SubscriberSnapshot } from '@mailcast/core';

/** A sending broadcast as the renderer gets it, with the overrides. */
export function aBroadcast(overrides: Partial<Broadcast>): Broadcast {
  const at = new Date('2026-06-01T00:00:00Z');
  return {
    id: 1,
    channelId: 1,
    name: 'News',
    subject: 'Hi {{ subscriber.first_name }}',
    preheader: null,
    body: null,
    htmlBody: null,
    includeUnsubscribeLink: true,
    replyTo: null,
    status: 'sending',
    trackOpens: true,
    trackClicks: true,
    useAnyEmailServer: true,
    emailHeaders: [],
    tags: [],
    segmentIds: [],
    topicId: null,
    excludedSegmentIds: [],
    templateId: null,
    emailServerIds: [],
    totalRecipients: 0,
    broadcastRecipientsCount: 0,
    scheduledSendAt: null,
    scheduledTimezone: null,
    beginSendAt: null,
    sentAt: null,
    archive: false,
    sendInSubscriberTimezone: false,
    pausedFrom: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

export const subscriber = (id: number, firstName: string | null = 'Ann'): SubscriberSnapshot => ({
  id,
  email: `s${id}@example.test`,
  firstName,
  lastName: null,
  tags: [],
  customData: {},
  isActive: true,
  source: 'api',
  subscribedAt: new Date('2026-01-01T00:00:00Z'),
  unsubscribedAt: null,
});
