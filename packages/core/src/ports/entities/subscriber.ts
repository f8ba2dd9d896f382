export interface Subscriber {
  id: number;
  channelId: number;
  /** Normalised (trimmed, lower-cased): docs/subscribers.md. */
  email: string;
  firstName: string | null;
  lastName: string | null;
  ipAddress: string | null;
  isActive: boolean;
  source: string;
  subscribedAt: Date;
  unsubscribedAt: Date | null;
  confirmedAt: Date | null;
  /** Created through double opt-in: no broadcast until confirmed (docs/subscribers.md). */
  requiresConfirmation: boolean;
  redactedAt: Date | null;
  tags: string[];
  customData: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type NewSubscriber = Pick<Subscriber, 'channelId' | 'email' | 'requiresConfirmation'> &
  Partial<Pick<Subscriber, 'firstName' | 'lastName' | 'ipAddress' | 'source' | 'subscribedAt' | 'tags' | 'customData' | 'isActive'>>;

/** The spec's list filters, already parsed; every one is optional and they combine with AND. */
export interface SubscriberFilter {
  isActive?: boolean;
  source?: string;
  /** Partial, case-insensitive match anywhere in the address. */
  emailContains?: string;
  confirmationStatus?: 'confirmed' | 'unconfirmed';
  /** Inclusive bounds. */
  createdAfter?: Date;
  createdBefore?: Date;
  /** All of them (AND). */
  tags?: string[];
  /** JSON containment. */
  customData?: Record<string, string | number | boolean>;
}

export interface ConfirmationTemplate {
  id: number;
  channelId: number;
  name: string;
  subject: string;
  body: string;
  isDefault: boolean;
}

/** One double opt-in link. The token itself is never stored, only its hash. */
export interface SubscriberConfirmation {
  id: number;
  channelId: number;
  subscriberId: number;
  templateId: number | null;
  replyTo: string | null;
  includeUnsubscribeLink: boolean;
  createdAt: Date;
  emailSentAt: Date | null;
  confirmedAt: Date | null;
  supersededAt: Date | null;
}

export type NewSubscriberConfirmation = Pick<SubscriberConfirmation, 'channelId' | 'subscriberId' | 'templateId' | 'replyTo' | 'includeUnsubscribeLink'> & {
  tokenHash: Uint8Array;
  /** A request whose email was queued (counted by the hourly cap). */ emailQueued?: boolean;
};
