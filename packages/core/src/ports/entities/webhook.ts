import type { EventType } from '@mailcast/domain';

export interface WebhookEndpoint {
  id: number;
  channelId: number;
  url: string;
  description: string | null;
  active: boolean;
  eventTypes: EventType[];
  retriesToAttempt: number;
  /** The whole secret: the presenter decides where it is shown and where it is redacted. */
  secret: string;
  lastResponseCode: number | null;
  lastSentAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebhookEndpoint = Pick<WebhookEndpoint, 'channelId' | 'url' | 'description' | 'active' | 'eventTypes' | 'retriesToAttempt' | 'secret'>;

export type WebhookEndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'description' | 'active' | 'eventTypes' | 'retriesToAttempt'>>;

/** Stored status; the spec's list shows pending, succeeded (Successful) and failed. */
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

export interface WebhookDelivery {
  id: number;
  channelId: number;
  eventId: number;
  webhookEndpointId: number;
  eventType: EventType;
  eventData: Record<string, unknown>;
  status: WebhookDeliveryStatus;
  attemptNumber: number;
  responseStatus: number | null;
  responseBody: string | null;
  errorMessage: string | null;
  firstAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  nextRetryAt: Date | null;
  successfullyDeliveredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
