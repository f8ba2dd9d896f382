import { integerHeader, rateLimitOf, type MailcastClientOptions, type Page, type SubscriberFilters } from './client-options';
import { MailcastError, type RateLimitInfo } from './errors';
import type {
  BroadcastCreateInput,
  BroadcastInput,
  ScheduleInput,
  SubscriberCreateInput,
  SubscriberUpdateInput,
  DoubleOptInOptions,
  WebhookEndpointCreateInput,
  WebhookEndpointUpdateInput,
  TimelineMetric,
  TemplateInput,
  TransactionalInput,
  WhoAmI,
  ChannelStatus,
  Prime,
  ChannelDesign,
  ChannelSettings,
  ChannelSettingsInput,
  SegmentInput,
  SegmentCreateInput,
  TopicInput,
  UserInput,
  ChannelGrantInput,
  SequenceInput,
  SequenceStepInput,
  SequenceSubscriberInput,
  OptInFormInput,
  EmailServerCreateInput,
  EmailServerUpdateInput,
} from './schemas';
import { fillPath, ROUTES, toQueryString, type ClientOperationId, type QueryOf, type QueryValue, type RequestBody, type SuccessBody } from './http';

// The schema types by name, as the client has always exported them.
export * from './schemas';

export type { MailcastClientOptions, Page, SubscriberFilters } from './client-options';

interface CallInit<Id extends ClientOperationId> {
  params?: Record<string, string | number>;
  query?: Record<string, QueryValue>;
  body?: RequestBody<Id>;
  headers?: Record<string, string>;
  /** The operation answers text/plain (the skill): its text is the result. */
  text?: true;
}

/**
 * A typed client of the Mailcast API. Request and response types are generated from the
 * service's OpenAPI document; bodies are sent in the canonical nested form
 * (`{"broadcast": {...}}`). Every non-2xx answer rejects with a MailcastError.
 */
export class MailcastClient {
  /** The X-RateLimit-* headers of the most recent answer that carried them. */
  rateLimit: RateLimitInfo | undefined;

  private readonly baseUrl: string;
  private readonly token: string;
  private readonly fetchImpl: typeof fetch;
  private readonly extraHeaders: Record<string, string>;
  private readonly timeoutMs: number | undefined;

  constructor(options: MailcastClientOptions) {
    if (!options.token) throw new TypeError('MailcastClient needs a token');
    this.baseUrl = String(options.baseUrl).replace(/\/+$/, '');
    this.token = options.token;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.extraHeaders = options.headers ?? {};
    this.timeoutMs = options.timeoutMs;
  }

  /** The calling token, its permissions and its channel; any valid token may ask. */
  whoami(): Promise<WhoAmI> {
    return this.call('whoami');
  }

  /** The channel's sender, subscriber counts and readiness (`ready`: an active email server and a sender address). */
  status(): Promise<ChannelStatus> {
    return this.call('getStatus');
  }

  /** Everything the token can reach: resources, their endpoints, the rate limit and tips. */
  prime(): Promise<Prime> {
    return this.call('prime');
  }

  /** The agent skill: Markdown with YAML front matter and the safety rules (a string). */
  async skill(): Promise<string> {
    return String(await this.call('skill', { text: true }));
  }

  /** The channel's brand kit, every key present (`templates_read`). */
  channelDesign(): Promise<ChannelDesign> {
    return this.call('getChannelDesign');
  }

  /** The reputation guard's limits and the channel's own sender (`channel_settings_read` / `_write`). */
  readonly channelSettings = {
    get: (): Promise<ChannelSettings> => this.call('getChannelSettings'),
    update: (settings: ChannelSettingsInput): Promise<ChannelSettings> => this.call('updateChannelSettings', { body: { settings } }),
  };

  readonly broadcasts = {
    list: (page: Page = {}) => this.call('listBroadcasts', { query: page }),
    get: (id: number) => this.call('getBroadcast', { params: { id } }),
    /** Creates a draft; resolves to `{id}`. */
    create: (broadcast: BroadcastCreateInput) => this.call('createBroadcast', { body: { broadcast } }),
    /** Only the fields given change; only in draft or future_scheduled. */
    update: (id: number, broadcast: BroadcastInput) => this.call('updateBroadcast', { params: { id }, body: { broadcast } }),
    delete: (id: number) => this.call('deleteBroadcast', { params: { id } }),
    send: (id: number) => this.call('sendBroadcast', { params: { id } }),
    /** Without a schedule, confirms the one already set on the broadcast. */
    schedule: (id: number, schedule?: ScheduleInput) =>
      this.call('scheduleBroadcast', { params: { id }, ...(schedule ? { body: { broadcast: schedule } } : {}) }),
    cancelSchedule: (id: number) => this.call('cancelSchedule', { params: { id } }),
    pause: (id: number) => this.call('pauseBroadcast', { params: { id } }),
    resume: (id: number) => this.call('resumeBroadcast', { params: { id } }),
    abort: (id: number) => this.call('abortBroadcast', { params: { id } }),
    /** The email as the subscriber would receive it, untracked (needs subscribers_read too). */
    preview: (id: number, email: string) => this.call('previewBroadcast', { params: { id }, body: { email } }),
    statistics: (id: number) => this.call('getBroadcastStatistics', { params: { id } }),
    timeline: (id: number, options: { timeframe?: QueryOf<'getBroadcastTimeline'>['timeframe']; metrics?: string | readonly TimelineMetric[] } = {}) =>
      this.call('getBroadcastTimeline', {
        params: { id },
        query: {
          timeframe: options.timeframe,
          metrics: Array.isArray(options.metrics) ? options.metrics.join(',') : (options.metrics as string | undefined),
        },
      }),
    links: (id: number, options: QueryOf<'getBroadcastLinks'> = {}) => this.call('getBroadcastLinks', { params: { id }, query: options }),
  };

  readonly subscribers = {
    list: (filters: SubscriberFilters = {}) => {
      const { tags, custom_data, is_active, ...rest } = filters;
      return this.call('listSubscribers', {
        query: { ...rest, 'tags[]': tags, custom_data, is_active: is_active === undefined ? undefined : String(is_active) },
      });
    },
    /** Exact, case-insensitive address match; a 404 MailcastError when there is none. */
    find: (email: string) => this.call('findSubscriber', { query: { email } }),
    /** Every email sent to the address, newest first, 100 a page; a 404 MailcastError for an unknown address. */
    history: (email: string, page?: number) => this.call('getSubscriberHistory', { query: page === undefined ? { email } : { email, page } }),
    /**
     * A new address resolves to the subscriber (201); an existing one is updated and reactivated
     * (200). With `double_opt_in` the answer is the double opt-in shape, with a confirmation_url.
     */
    create: (subscriber: SubscriberCreateInput, options: { double_opt_in?: boolean | DoubleOptInOptions; confirmation_template_id?: number } = {}) =>
      this.call('createSubscriber', { body: { subscriber, ...options } }),
    /** `subscriber.email` names the subscriber; `tags` and `custom_data` replace the old values. */
    update: (subscriber: SubscriberUpdateInput & { email: string }) => this.call('updateSubscriber', { body: { subscriber } }),
    deactivate: (email: string) => this.call('deactivateSubscriber', { body: { email } }),
    activate: (email: string) => this.call('activateSubscriber', { body: { email } }),
    addTags: (email: string, tags: string[]) => this.call('addSubscriberTags', { body: { email, tags } }),
    removeTags: (email: string, tags: string[]) => this.call('removeSubscriberTags', { body: { email, tags } }),
    unsubscribe: (email: string) => this.call('unsubscribeSubscriber', { body: { email } }),
    resubscribe: (email: string) => this.call('resubscribeSubscriber', { body: { email } }),
    /** GDPR redaction; irreversible. */
    redact: (email: string) => this.call('redactSubscriber', { body: { email } }),
  };

  readonly webhookEndpoints = {
    list: (page: Page = {}) => this.call('listWebhookEndpoints', { query: page }),
    get: (id: number) => this.call('getWebhookEndpoint', { params: { id } }),
    /** The only answer with the whole secret: keep it to verify deliveries. */
    create: (webhook_endpoint: WebhookEndpointCreateInput) => this.call('createWebhookEndpoint', { body: { webhook_endpoint } }),
    update: (id: number, webhook_endpoint: WebhookEndpointUpdateInput) => this.call('updateWebhookEndpoint', { params: { id }, body: { webhook_endpoint } }),
    delete: (id: number) => this.call('deleteWebhookEndpoint', { params: { id } }),
    /** Queues a delivery of `eventType` (default test.webhook). */
    test: (id: number, eventType?: NonNullable<RequestBody<'testWebhookEndpoint'>['event_type']>) =>
      this.call('testWebhookEndpoint', { params: { id }, body: eventType === undefined ? {} : { event_type: eventType } }),
    deliveries: (id: number, page: Page = {}) => this.call('listWebhookDeliveries', { params: { id }, query: page }),
  };

  readonly segments = {
    list: (page: Page = {}) => this.call('listSegments', { query: page }),
    /** The segment, its members counted now, and page `page` of them (250 a page). */
    get: (id: number, page?: number) => this.call('getSegment', { params: { id }, query: { page } }),
    create: (segment: SegmentCreateInput) => this.call('createSegment', { body: { segment } }),
    /** `rules` replaces the whole rule list. */
    update: (id: number, segment: SegmentInput) => this.call('updateSegment', { params: { id }, body: { segment } }),
    delete: (id: number) => this.call('deleteSegment', { params: { id } }),
    /** How many subscribers `match` and `rules` select now, without saving them (a rule builder's live count). */
    count: (rules: Pick<SegmentInput, 'match' | 'rules'>) => this.call('countSegmentRules', { body: { segment: rules } }),
  };

  /** Topics (docs/topics.md): custom_data or tag storage, inferred from the field given. */
  readonly topics = {
    list: (page: Page = {}) => this.call('listTopics', { query: page }),
    /** With `counts {yes, no, unset, receiving}`. */
    get: (id: number) => this.call('getTopic', { params: { id } }),
    create: (topic: TopicInput) => this.call('createTopic', { body: { topic } }),
    update: (id: number, topic: TopicInput) => this.call('updateTopic', { params: { id }, body: { topic } }),
    /** 422 while an unsent broadcast, a sequence or a form block uses it. */
    delete: (id: number) => this.call('deleteTopic', { params: { id } }),
  };

  /** Users of the installation (docs/teams.md, "Users API"): an admin token's alone. */
  readonly users = {
    list: (query: QueryOf<'listUsers'> = {}) => this.call('listUsers', { query }),
    get: (id: number) => this.call('getUser', { params: { id } }),
    /** With `password` (12+ characters) or `sendPasswordReset` (a link mailed to the user). */
    create: (user: UserInput, options: { sendPasswordReset?: boolean } = {}) =>
      this.call('createUser', { body: { user, ...(options.sendPasswordReset ? { send_password_reset: true } : {}) } }),
    update: (id: number, user: UserInput) => this.call('updateUser', { params: { id }, body: { user } }),
    delete: (id: number) => this.call('deleteUser', { params: { id } }),
    deactivate: (id: number) => this.call('deactivateUser', { params: { id } }),
    /** Also lifts a lockout after failed sign-ins. */
    activate: (id: number) => this.call('activateUser', { params: { id } }),
    listChannelPermissions: (id: number) => this.call('listUserChannelPermissions', { params: { id } }),
    /** Exactly one of `permissions`, `role`, `preset_id`. */
    setChannelPermission: (id: number, channelId: number, grant: ChannelGrantInput) =>
      this.call('putUserChannelPermission', { params: { id, broadcast_channel_id: channelId }, body: { channel_permission: grant } }),
    removeChannelPermission: (id: number, channelId: number) => this.call('deleteUserChannelPermission', { params: { id, broadcast_channel_id: channelId } }),
    setChannelPermissions: (id: number, channelIds: number[], grant: ChannelGrantInput) =>
      this.call('bulkPutUserChannelPermissions', { params: { id }, body: { broadcast_channel_ids: channelIds, ...grant } }),
    getSystemPermissions: (id: number) => this.call('getUserSystemPermissions', { params: { id } }),
    updateSystemPermissions: (id: number, permissions: Record<string, boolean>) =>
      this.call('updateUserSystemPermissions', { params: { id }, body: { permissions } }),
  };

  /** Sequences, named as the reference service's clients name them. */
  readonly sequences = {
    listSequences: (page: Page = {}) => this.call('listSequences', { query: page }),
    /** `includeSteps` adds every step, depth-first. */
    getSequence: (id: number, includeSteps = false) => this.call('getSequence', { params: { id }, query: includeSteps ? { include_steps: true } : {} }),
    createSequence: (sequence: SequenceInput = {}) => this.call('createSequence', { body: { sequence } }),
    updateSequence: (id: number, sequence: SequenceInput) => this.call('updateSequence', { params: { id }, body: { sequence } }),
    /** 422 while a move_to_sequence step of another sequence targets it. */
    deleteSequence: (id: number) => this.call('deleteSequence', { params: { id } }),
    /** 201 enrolled; 200 with the already_enrolled warning; `restart` starts an ended enrolment again. */
    addSubscriber: (id: number, subscriber: SequenceSubscriberInput, options: { restart?: boolean } = {}) =>
      this.call('addSequenceSubscriber', { params: { id }, body: { subscriber, ...options } }),
    removeSubscriber: (id: number, email: string) => this.call('removeSequenceSubscriber', { params: { id }, body: { subscriber: { email } } }),
    /** Newest first, 10 a page. */
    listSubscribers: (id: number, query: QueryOf<'listSequenceSubscribers'> = {}) => this.call('listSequenceSubscribers', { params: { id }, query }),
    listSteps: (id: number) => this.call('listSequenceSteps', { params: { id } }),
    getStep: (id: number, stepId: number) => this.call('getSequenceStep', { params: { id, step_id: stepId } }),
    /** Default action send_email, default parent the end of the main line. */
    createStep: (id: number, step: SequenceStepInput) => this.call('createSequenceStep', { params: { id }, body: { step } }),
    updateStep: (id: number, stepId: number, step: SequenceStepInput) => this.call('updateSequenceStep', { params: { id, step_id: stepId }, body: { step } }),
    deleteStep: (id: number, stepId: number) => this.call('deleteSequenceStep', { params: { id, step_id: stepId } }),
    moveStep: (id: number, stepId: number, underId: number) =>
      this.call('moveSequenceStep', { params: { id, step_id: stepId }, body: { step: { under_id: underId } } }),
  };

  /** Opt-in forms (docs/opt-in-forms.md), named as the reference service's clients name them. */
  readonly optInForms = {
    /** Main forms, 250 a page; `filter` matches the label. */
    listOptInForms: (query: QueryOf<'listOptInForms'> = {}) => this.call('listOptInForms', { query }),
    getOptInForm: (id: number) => this.call('getOptInForm', { params: { id } }),
    createOptInForm: (opt_in_form: OptInFormInput & { label: string }) => this.call('createOptInForm', { body: { opt_in_form } }),
    /** Settings objects deep-merge; null deletes a key. */
    updateOptInForm: (id: number, opt_in_form: OptInFormInput) => this.call('updateOptInForm', { params: { id }, body: { opt_in_form } }),
    /** Its variants go with it. */
    deleteOptInForm: (id: number) => this.call('deleteOptInForm', { params: { id } }),
    /** Dates YYYY-MM-DD; default the last 30 days. */
    getAnalytics: (id: number, query: QueryOf<'getOptInFormAnalytics'> = {}) => this.call('getOptInFormAnalytics', { params: { id }, query }),
    createVariant: (id: number, variant: { name?: string; weight?: number } = {}) => this.call('createOptInFormVariant', { params: { id }, body: { variant } }),
    duplicate: (id: number, options: { label?: string } = {}) => this.call('duplicateOptInForm', { params: { id }, body: { opt_in_form: options } }),
  };

  readonly emailServers = {
    list: (page: Page = {}) => this.call('listEmailServers', { query: page }),
    get: (id: number) => this.call('getEmailServer', { params: { id } }),
    create: (email_server: EmailServerCreateInput) => this.call('createEmailServer', { body: { email_server } }),
    /** A `smtp_password` sent back redacted, as read, leaves the password unchanged. */
    update: (id: number, email_server: EmailServerUpdateInput) => this.call('updateEmailServer', { params: { id }, body: { email_server } }),
    delete: (id: number) => this.call('deleteEmailServer', { params: { id } }),
    /** A real SMTP handshake that sends nothing: `{ok, message}`. */
    testConnection: (id: number) => this.call('testEmailServerConnection', { params: { id } }),
    generateDkimKey: (id: number, body: RequestBody<'generateDkimKey'> = {}) => this.call('generateDkimKey', { params: { id }, body }),
    /** Admin token only (docs/email-servers.md, "Copy to another channel"). */
    copyToChannel: (id: number, targetChannelId: number) =>
      this.call('copyEmailServerToChannel', { params: { id }, body: { target_channel_id: targetChannelId } }),
  };

  readonly templates = {
    list: (page: Page = {}) => this.call('listTemplates', { query: page }),
    get: (id: number) => this.call('getTemplate', { params: { id } }),
    create: (template: TemplateInput & { label: string }) => this.call('createTemplate', { body: { template } }),
    update: (id: number, template: TemplateInput) => this.call('updateTemplate', { params: { id }, body: { template } }),
    /** 422 while a scheduled or sending broadcast was written from it. */
    delete: (id: number) => this.call('deleteTemplate', { params: { id } }),
    /** Unsaved content rendered for a sample subscriber (docs/templates.md, "Preview"); invalid Liquid: the save's 422. */
    preview: (content: RequestBody<'previewTemplate'>) => this.call('previewTemplate', { body: content }),
  };

  readonly transactionals = {
    /**
     * With `idempotencyKey`, a retry with the same body within 24 hours answers the first
     * answer again and sends nothing (a 409 while the first is still in progress).
     */
    create: (transactional: TransactionalInput, options: { idempotencyKey?: string } = {}) =>
      this.call('createTransactional', {
        body: transactional,
        ...(options.idempotencyKey !== undefined ? { headers: { 'Idempotency-Key': options.idempotencyKey } } : {}),
      }),
    get: (id: number) => this.call('getTransactional', { params: { id } }),
    /** The log, newest first: `status`, `email` (part of the recipient), `created_after`/`created_before`, `limit`/`offset`. */
    list: (query: QueryOf<'listTransactionals'> = {}) => this.call('listTransactionals', { query }),
    /** Its recorded `email.*` events, oldest first. */
    events: (id: number) => this.call('listTransactionalEvents', { params: { id } }),
  };

  /** A suppression list: the channel's (`suppressions`) or the installation-wide one (`globalSuppressions`). */
  private suppressionList(scope: '' | 'Global') {
    return {
      list: (query: QueryOf<'listSuppressions'> = {}) => this.call(`list${scope}Suppressions`, { query }),
      add: (email: string) => this.call(`add${scope}Suppressions`, { body: { email } }),
      remove: (email: string) => this.call(`remove${scope}Suppressions`, { body: { email } }),
      /** At most 10,000 addresses. */
      addMany: (emails: string[]) => this.call(`add${scope}SuppressionsInBulk`, { body: { emails } }),
      removeMany: (emails: string[]) => this.call(`remove${scope}SuppressionsInBulk`, { body: { emails } }),
    };
  }

  readonly suppressions = {
    ...this.suppressionList(''),
    /** Whether email from this channel to the address is suppressed, and by which list. */
    check: (email: string) => this.call('checkSuppression', { query: { email } }),
  };

  readonly globalSuppressions = this.suppressionList('Global');

  /** The audit log of every write (docs/teams.md): an admin token with `audit_log_read`. Newest first. */
  readonly auditLog = {
    list: (query: QueryOf<'listAuditLog'> = {}) => this.call('listAuditLog', { query }),
  };

  private async call<Id extends ClientOperationId>(id: Id, init: CallInit<Id> = {}): Promise<SuccessBody<Id>> {
    const route = ROUTES[id];
    const url = this.baseUrl + fillPath(route.path, init.params) + toQueryString(init.query);
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ...this.extraHeaders,
      ...init.headers,
      Authorization: `Bearer ${this.token}`,
    };
    const request: RequestInit = { method: route.method, headers };
    if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      request.body = JSON.stringify(init.body);
    }
    if (this.timeoutMs !== undefined) request.signal = AbortSignal.timeout(this.timeoutMs);

    const response = await this.fetchImpl(url, request);
    const rateLimit = rateLimitOf(response.headers);
    if (rateLimit) this.rateLimit = rateLimit;
    const text = await response.text();
    const isJson = /^application\/(.+\+)?json\b/i.test(response.headers.get('content-type') ?? '');
    let body: unknown = text;
    if (isJson && text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: the error below carries what was received
      }
    }
    if (!response.ok) {
      throw new MailcastError(response.status, body, id, integerHeader(response.headers, 'retry-after'), rateLimit);
    }
    if (init.text === true && /^text\/plain\b/i.test(response.headers.get('content-type') ?? '')) return text as SuccessBody<Id>;
    if (!isJson || typeof body === 'string') {
      throw new MailcastError(response.status, body, id, undefined, rateLimit);
    }
    return body as SuccessBody<Id>;
  }
}
