import type { OutboxEvent } from './entities/events';
import type { Page } from './entities/page';
import type {
  ConfirmationTemplate,
  NewSubscriber,
  NewSubscriberConfirmation,
  Subscriber,
  SubscriberConfirmation,
  SubscriberFilter,
} from './entities/subscriber';

export interface SubscriberRepository {
  /**
   * Inserts the subscriber unless its address already exists in the channel (one upsert on the
   * unique key, never check-then-insert); null means it exists.
   */
  insertIfAbsent(subscriber: NewSubscriber, now: Date): Promise<Subscriber | null>;
  /**
   * insertIfAbsent that, for a new row, also records its outbox events, atomically (one
   * statement, so on a pool as inside a transaction): the events commit with the row or not at
   * all; null (nothing written) when the address exists. `events` is given the row as the insert
   * writes it, before its id exists; each event's data gets the new row's id as `subscriber_id`.
   */
  insertIfAbsentWithEvents(subscriber: NewSubscriber, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null>;
  /**
   * By exact normalised address, with a version that every committed change of the row
   * replaces: what saveIfVersion compares, so a change needs no lock held across round trips.
   */
  findVersioned(channelId: number, email: string): Promise<{ subscriber: Subscriber; version: string } | null>;
  /**
   * save() and the change's outbox events, atomically (one statement), only if the row is still
   * at `version`; null, and nothing written, when it changed since. `events` is given the row as
   * written. An address taken by another subscriber is a ValidationError on email.
   */
  saveIfVersion(subscriber: Subscriber, version: string, now: Date, events: (row: Subscriber) => OutboxEvent[]): Promise<Subscriber | null>;
  /** By exact normalised address; `forUpdate` locks the row for the rest of the transaction. */
  findByEmail(channelId: number, email: string, options?: { forUpdate?: boolean }): Promise<Subscriber | null>;
  findById(channelId: number, id: number, options?: { forUpdate?: boolean }): Promise<Subscriber | null>;
  /** Writes every mutable field; an address taken by another subscriber is a ValidationError on email. */
  save(subscriber: Subscriber, now: Date): Promise<Subscriber>;
  /** Most recently created first. */
  list(channelId: number, filter: SubscriberFilter, page: Page): Promise<{ items: Subscriber[]; total: number }>;
}

export interface ConfirmationTemplateRepository {
  create(template: Omit<ConfirmationTemplate, 'id'>): Promise<ConfirmationTemplate>;
  findById(channelId: number, id: number): Promise<ConfirmationTemplate | null>;
  findDefault(channelId: number): Promise<ConfirmationTemplate | null>;
}

export interface SubscriberConfirmationRepository {
  create(confirmation: NewSubscriberConfirmation, now: Date): Promise<SubscriberConfirmation>;
  findById(id: number): Promise<SubscriberConfirmation | null>;
  findByTokenHash(hash: Uint8Array): Promise<SubscriberConfirmation | null>;
  /** A newer request makes the subscriber's open links stale (schema: superseded_at). */
  supersedeOpen(subscriberId: number, now: Date): Promise<void>;
  markConfirmed(id: number, now: Date): Promise<void>;
  markEmailSent(id: number, now: Date): Promise<void>;
  /** How many of the subscriber's requests created at or after `since` queued an email. */
  countQueuedSince(subscriberId: number, since: Date): Promise<number>;
}

/** Public links written into emails and API answers (docs/operations.md: PUBLIC_URL). */
export interface PublicLinks {
  confirmation(token: string): string;
  confirmationUnsubscribe(token: string): string;
  /** A channel's public archive page (docs/archive.md); `rest` is a path below it. */
  archive(slug: string, rest?: string): string;
  /** A recipient's own copy of a broadcast (docs/archive.md, Web view). */
  webView(token: string): string;
}
export const PublicLinks = Symbol.for('mailcast.PublicLinks');
