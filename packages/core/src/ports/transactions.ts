import type { SubjectTestStore } from './subject-tests';
import type { ApiTokenRepository, ChannelRepository, EmailServerRepository } from './channels';
import type { BroadcastRepository } from './broadcasts';
import type { BounceRepository } from './bounces';
import type { ConfirmationTemplateRepository, SubscriberConfirmationRepository, SubscriberRepository } from './subscribers';
import type { EmailEvents, EventOutbox } from './events';
import type { JobQueue } from './jobs';
import type { RecipientStore } from './recipients';
import type { OptInFormRepository } from './opt-in-forms';
import type { SequenceRepository } from './sequences';
import type { SuppressionRepository } from './suppressions';
import type { TemplateRepository } from './templates-store';
import type { TopicRepository } from './topics';
import type { IdempotencyStore, TransactionalRepository } from './transactionals';
import type { FormSubmissionRepository } from './form-submissions';
import type { WebhookDeliveryRepository, WebhookEndpointRepository } from './webhooks';

/** Every repository, bound to one transaction. */
export interface Repositories {
  channels: ChannelRepository;
  apiTokens: ApiTokenRepository;
  emailServers: EmailServerRepository;
  broadcasts: BroadcastRepository;
  subscribers: SubscriberRepository;
  subscriberConfirmations: SubscriberConfirmationRepository;
  confirmationTemplates: ConfirmationTemplateRepository;
  emailEvents: EmailEvents;
  /** The sending pipeline's recipients, links and tracking look-ups. */
  recipients: RecipientStore;
  outbox: EventOutbox;
  jobs: JobQueue;
  webhookEndpoints: WebhookEndpointRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  suppressions: SuppressionRepository;
  templates: TemplateRepository;
  transactionals: TransactionalRepository;
  /** What an opt-in form submission writes besides the subscriber (docs/opt-in-forms.md). */
  formSubmissions: FormSubmissionRepository;
  idempotency: IdempotencyStore;
  /** Asynchronous bounces and complaints, and the receivers' replay guard. */
  bounces: BounceRepository;
  sequences: SequenceRepository;
  optInForms: OptInFormRepository;
  topics: TopicRepository;
  /** Subject tests' samples, figures and winners (docs/subject-tests.md). */
  subjectTests: SubjectTestStore;
}
/** The same repositories outside any transaction, for reads. */
export const Repositories = Symbol.for('mailcast.Repositories');

/**
 * Runs work in one database transaction: the state change, the events it emits and the jobs
 * it triggers commit together or not at all (docs/operations.md, "How a change happens").
 */
export interface Transactor {
  run<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
export const Transactor = Symbol.for('mailcast.Transactor');
