import type { Repositories, Transactor } from '@mailcast/core';
import type { Knex } from 'knex';
import type PgBoss from 'pg-boss';
import { PgBossJobQueue } from '../queue/pg-boss-job-queue';
import type { SecretBox } from '../secrets/secret-box';
import { transactionExecutor } from './database';
import { PgApiTokenRepository } from './pg-api-token.repository';
import { PgBounceRepository } from './pg-bounce.repository';
import { PgBroadcastRepository } from './pg-broadcast.repository';
import { PgChannelRepository } from './pg-channel.repository';
import { PgEmailEvents } from './pg-email-events';
import { PgEmailServerRepository } from './pg-email-server.repository';
import { OutboxWakeup } from './outbox-wakeup';
import { PgEventOutbox } from './pg-event-outbox';
import { PgFormSubmissionRepository } from './pg-form-submission.repository';
import { PgConfirmationTemplateRepository, PgSubscriberConfirmationRepository } from './pg-subscriber-confirmation.repository';
import { PgSubscriberRepository } from './pg-subscriber.repository';
import { PgSuppressionRepository } from './pg-suppression.repository';
import { PgTemplateRepository } from './pg-template.repository';
import { PgIdempotencyStore, PgTransactionalRepository } from './pg-transactional.repository';
import { PgOptInFormRepository } from './pg-opt-in-form.repository';
import { PgRecipientStore } from './pg-recipient-store';
import { PgSequenceRepository } from './pg-sequence.repository';
import { PgTopicRepository } from './pg-topic.repository';
import { PgSubjectTestStore } from './pg-subject-tests';
import { PgWebhookDeliveryRepository } from './pg-webhook-delivery.repository';
import { PgWebhookEndpointRepository } from './pg-webhook-endpoint.repository';

/**
 * Every repository over one connection or transaction; jobs go through the same one.
 * `eventRecorded` is called for each event the outbox writes.
 */
export function pgRepositories(db: Knex, boss: PgBoss, secrets: SecretBox, eventRecorded?: () => void): Repositories {
  const inTransaction = db.isTransaction === true;
  return {
    channels: new PgChannelRepository(db),
    apiTokens: new PgApiTokenRepository(db),
    emailServers: new PgEmailServerRepository(db, secrets),
    broadcasts: new PgBroadcastRepository(db),
    subscribers: new PgSubscriberRepository(db, undefined, eventRecorded),
    subscriberConfirmations: new PgSubscriberConfirmationRepository(db),
    confirmationTemplates: new PgConfirmationTemplateRepository(db),
    emailEvents: new PgEmailEvents(db),
    recipients: new PgRecipientStore(db, secrets),
    outbox: new PgEventOutbox(db, eventRecorded),
    jobs: new PgBossJobQueue(boss, inTransaction ? transactionExecutor(db as Knex.Transaction) : undefined),
    webhookEndpoints: new PgWebhookEndpointRepository(db, secrets),
    webhookDeliveries: new PgWebhookDeliveryRepository(db, secrets),
    suppressions: new PgSuppressionRepository(db),
    templates: new PgTemplateRepository(db),
    transactionals: new PgTransactionalRepository(db, secrets),
    formSubmissions: new PgFormSubmissionRepository(db, eventRecorded),
    idempotency: new PgIdempotencyStore(db),
    bounces: new PgBounceRepository(db),
    sequences: new PgSequenceRepository(db, eventRecorded, secrets),
    optInForms: new PgOptInFormRepository(db),
    topics: new PgTopicRepository(db),
    subjectTests: new PgSubjectTestStore(db),
  };
}

export class PgTransactor implements Transactor {
  constructor(
    private readonly db: Knex,
    private readonly boss: PgBoss,
    private readonly secrets: SecretBox,
    private readonly wakeup = new OutboxWakeup(db),
  ) {}

  /** A transaction that wrote outbox events wakes the relays once it has committed. */
  async run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    let recorded = false;
    const result = await this.db.transaction((trx) => work(pgRepositories(trx, this.boss, this.secrets, () => (recorded = true))));
    if (recorded) this.wakeup.poke();
    return result;
  }
}
