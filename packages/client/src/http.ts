import type { operations } from './generated/openapi';

/** Every operation of the document, by operationId. */
export type OperationId = keyof operations;

/** Operations the client does not wrap: pages for people and probes for operators. */
type NotWrapped =
  | 'getApiDocs'
  | 'getOpenApiDocument'
  | 'getOpenApiDocumentYaml'
  | 'getHealth'
  | 'getReadiness'
  | 'getMetrics'
  | 'confirmSubscription'
  | 'confirmSubscriptionButton'
  | 'confirmationUnsubscribePage'
  | 'confirmationUnsubscribe'
  | 'trackOpen'
  | 'trackClick'
  | 'unsubscribePage'
  | 'unsubscribeOneClick'
  // the public archive and web views (docs/archive.md): pages for readers
  | 'archivePage'
  | 'archiveFeed'
  | 'archivedBroadcastPage'
  | 'webView'
  | 'preferencesPage'
  | 'savePreferences'
  // opt-in forms' visitor side (docs/opt-in-forms.md): called by browsers and the embed script
  | 'hostedFormPage'
  | 'formEmbedScript'
  | 'formRenderData'
  | 'formRenderDataPreflight'
  | 'recordFormView'
  | 'recordFormViewPreflight'
  | 'submitForm'
  | 'submitFormPreflight'
  // providers' bounce and complaint webhooks: posted by SES, Postmark, Mailgun and SendGrid
  | 'receiveSesNotification'
  | 'receivePostmarkNotification'
  | 'receiveMailgunNotification'
  | 'receiveSendgridNotification'
  // the dashboard's sign-in (docs/teams.md): a browser's session cookie, not a token
  | 'signIn'
  | 'getSession'
  | 'signOut'
  | 'listSessions'
  | 'revokeSession'
  | 'forgotPassword'
  | 'resetPassword'
  | 'changePassword'
  | 'verifyTwoFactor'
  | 'enrolTwoFactor'
  | 'confirmTwoFactor'
  | 'disableTwoFactor'
  | 'signInProviders'
  | 'startOidcSignIn'
  | 'finishOidcSignIn'
  // the export (docs/export.md): an admin migration tool's reads under /api/migration/v1, not the channel API
  | 'getExportManifest'
  | 'listExportCollection'
  | 'downloadExportFileAsset'
  // the document's `webhooks`: requests the service sends, not operations it answers
  | 'subscriberEvent'
  | 'emailEvent'
  | 'broadcastEvent'
  | 'attemptExhaustedEvent'
  | 'sequenceEvent'
  | 'subscriberPreferencesEvent'
  | 'subscribersPurgeEvent'
  | 'subjectTestDecidedEvent'
  | 'testWebhookEvent';

export type ClientOperationId = Exclude<OperationId, NotWrapped>;

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Where each operation lives. The mapped type makes this table exhaustive: an operation added to
 * the document and regenerated into ./generated is a compile error here until it is wrapped (or
 * listed in NotWrapped); a test in apps/api checks each method and path against the document.
 */
export const ROUTES: { readonly [Id in ClientOperationId]: { method: Method; path: string } } = {
  whoami: { method: 'GET', path: '/api/v1/whoami' },
  getStatus: { method: 'GET', path: '/api/v1/status' },
  prime: { method: 'GET', path: '/api/v1/prime' },
  skill: { method: 'GET', path: '/api/v1/skill' },
  getChannelDesign: { method: 'GET', path: '/api/v1/channel/design' },
  getChannelSettings: { method: 'GET', path: '/api/v1/channel/settings' },
  updateChannelSettings: { method: 'PATCH', path: '/api/v1/channel/settings' },
  listSegments: { method: 'GET', path: '/api/v1/segments.json' },
  createSegment: { method: 'POST', path: '/api/v1/segments' },
  getSegment: { method: 'GET', path: '/api/v1/segments/{id}.json' },
  updateSegment: { method: 'PATCH', path: '/api/v1/segments/{id}' },
  deleteSegment: { method: 'DELETE', path: '/api/v1/segments/{id}' },
  countSegmentRules: { method: 'POST', path: '/api/v1/segments/count' },
  listTopics: { method: 'GET', path: '/api/v1/topics.json' },
  createTopic: { method: 'POST', path: '/api/v1/topics' },
  getTopic: { method: 'GET', path: '/api/v1/topics/{id}.json' },
  updateTopic: { method: 'PATCH', path: '/api/v1/topics/{id}' },
  deleteTopic: { method: 'DELETE', path: '/api/v1/topics/{id}' },
  listSequences: { method: 'GET', path: '/api/v1/sequences' },
  listOptInForms: { method: 'GET', path: '/api/v1/opt_in_forms' },
  createOptInForm: { method: 'POST', path: '/api/v1/opt_in_forms' },
  getOptInForm: { method: 'GET', path: '/api/v1/opt_in_forms/{id}' },
  updateOptInForm: { method: 'PATCH', path: '/api/v1/opt_in_forms/{id}' },
  deleteOptInForm: { method: 'DELETE', path: '/api/v1/opt_in_forms/{id}' },
  getOptInFormAnalytics: { method: 'GET', path: '/api/v1/opt_in_forms/{id}/analytics' },
  createOptInFormVariant: { method: 'POST', path: '/api/v1/opt_in_forms/{id}/variants' },
  duplicateOptInForm: { method: 'POST', path: '/api/v1/opt_in_forms/{id}/duplicate' },
  createSequence: { method: 'POST', path: '/api/v1/sequences' },
  getSequence: { method: 'GET', path: '/api/v1/sequences/{id}' },
  updateSequence: { method: 'PATCH', path: '/api/v1/sequences/{id}' },
  deleteSequence: { method: 'DELETE', path: '/api/v1/sequences/{id}' },
  addSequenceSubscriber: { method: 'POST', path: '/api/v1/sequences/{id}/add_subscriber' },
  removeSequenceSubscriber: { method: 'DELETE', path: '/api/v1/sequences/{id}/remove_subscriber' },
  listSequenceSubscribers: { method: 'GET', path: '/api/v1/sequences/{id}/list_subscribers' },
  listSequenceSteps: { method: 'GET', path: '/api/v1/sequences/{id}/steps' },
  createSequenceStep: { method: 'POST', path: '/api/v1/sequences/{id}/steps' },
  getSequenceStep: { method: 'GET', path: '/api/v1/sequences/{id}/steps/{step_id}' },
  updateSequenceStep: { method: 'PATCH', path: '/api/v1/sequences/{id}/steps/{step_id}' },
  deleteSequenceStep: { method: 'DELETE', path: '/api/v1/sequences/{id}/steps/{step_id}' },
  moveSequenceStep: { method: 'POST', path: '/api/v1/sequences/{id}/steps/{step_id}/move' },
  listBroadcasts: { method: 'GET', path: '/api/v1/broadcasts' },
  createBroadcast: { method: 'POST', path: '/api/v1/broadcasts' },
  getBroadcast: { method: 'GET', path: '/api/v1/broadcasts/{id}' },
  updateBroadcast: { method: 'PATCH', path: '/api/v1/broadcasts/{id}' },
  deleteBroadcast: { method: 'DELETE', path: '/api/v1/broadcasts/{id}' },
  sendBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/send_broadcast' },
  scheduleBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/schedule_broadcast' },
  cancelSchedule: { method: 'POST', path: '/api/v1/broadcasts/{id}/cancel_schedule' },
  pauseBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/pause_broadcast' },
  resumeBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/resume_broadcast' },
  abortBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/abort_broadcast' },
  previewBroadcast: { method: 'POST', path: '/api/v1/broadcasts/{id}/preview' },
  getBroadcastStatistics: { method: 'GET', path: '/api/v1/broadcasts/{id}/statistics' },
  getBroadcastTimeline: { method: 'GET', path: '/api/v1/broadcasts/{id}/statistics/timeline' },
  getBroadcastLinks: { method: 'GET', path: '/api/v1/broadcasts/{id}/statistics/links' },
  listSubscribers: { method: 'GET', path: '/api/v1/subscribers.json' },
  findSubscriber: { method: 'GET', path: '/api/v1/subscribers/find.json' },
  getSubscriberHistory: { method: 'GET', path: '/api/v1/subscribers/history.json' },
  createSubscriber: { method: 'POST', path: '/api/v1/subscribers.json' },
  updateSubscriber: { method: 'PATCH', path: '/api/v1/subscribers.json' },
  deactivateSubscriber: { method: 'POST', path: '/api/v1/subscribers/deactivate.json' },
  activateSubscriber: { method: 'POST', path: '/api/v1/subscribers/activate.json' },
  addSubscriberTags: { method: 'POST', path: '/api/v1/subscribers/add_tag.json' },
  removeSubscriberTags: { method: 'DELETE', path: '/api/v1/subscribers/remove_tag.json' },
  unsubscribeSubscriber: { method: 'POST', path: '/api/v1/subscribers/unsubscribe.json' },
  resubscribeSubscriber: { method: 'POST', path: '/api/v1/subscribers/resubscribe.json' },
  redactSubscriber: { method: 'POST', path: '/api/v1/subscribers/redact.json' },
  listWebhookEndpoints: { method: 'GET', path: '/api/v1/webhook_endpoints' },
  createWebhookEndpoint: { method: 'POST', path: '/api/v1/webhook_endpoints' },
  getWebhookEndpoint: { method: 'GET', path: '/api/v1/webhook_endpoints/{id}' },
  updateWebhookEndpoint: { method: 'PATCH', path: '/api/v1/webhook_endpoints/{id}' },
  deleteWebhookEndpoint: { method: 'DELETE', path: '/api/v1/webhook_endpoints/{id}' },
  testWebhookEndpoint: { method: 'POST', path: '/api/v1/webhook_endpoints/{id}/test' },
  listWebhookDeliveries: { method: 'GET', path: '/api/v1/webhook_endpoints/{id}/deliveries' },
  listEmailServers: { method: 'GET', path: '/api/v1/email_servers' },
  createEmailServer: { method: 'POST', path: '/api/v1/email_servers' },
  getEmailServer: { method: 'GET', path: '/api/v1/email_servers/{id}' },
  updateEmailServer: { method: 'PATCH', path: '/api/v1/email_servers/{id}' },
  deleteEmailServer: { method: 'DELETE', path: '/api/v1/email_servers/{id}' },
  testEmailServerConnection: { method: 'POST', path: '/api/v1/email_servers/{id}/test_connection' },
  generateDkimKey: { method: 'POST', path: '/api/v1/email_servers/{id}/generate_dkim_key' },
  copyEmailServerToChannel: { method: 'POST', path: '/api/v1/email_servers/{id}/copy_to_channel' },
  listTemplates: { method: 'GET', path: '/api/v1/templates' },
  createTemplate: { method: 'POST', path: '/api/v1/templates' },
  getTemplate: { method: 'GET', path: '/api/v1/templates/{id}' },
  previewTemplate: { method: 'POST', path: '/api/v1/templates/preview' },
  updateTemplate: { method: 'PATCH', path: '/api/v1/templates/{id}' },
  deleteTemplate: { method: 'DELETE', path: '/api/v1/templates/{id}' },
  createTransactional: { method: 'POST', path: '/api/v1/transactionals.json' },
  getTransactional: { method: 'GET', path: '/api/v1/transactionals/{id}.json' },
  listTransactionals: { method: 'GET', path: '/api/v1/transactionals.json' },
  listTransactionalEvents: { method: 'GET', path: '/api/v1/transactionals/{id}/events.json' },
  listSuppressions: { method: 'GET', path: '/api/v1/suppressions.json' },
  addSuppressions: { method: 'POST', path: '/api/v1/suppressions.json' },
  removeSuppressions: { method: 'DELETE', path: '/api/v1/suppressions.json' },
  addSuppressionsInBulk: { method: 'POST', path: '/api/v1/suppressions/bulk.json' },
  removeSuppressionsInBulk: { method: 'DELETE', path: '/api/v1/suppressions/bulk.json' },
  checkSuppression: { method: 'GET', path: '/api/v1/suppressions/check.json' },
  listGlobalSuppressions: { method: 'GET', path: '/api/v1/global_suppressions.json' },
  addGlobalSuppressions: { method: 'POST', path: '/api/v1/global_suppressions.json' },
  removeGlobalSuppressions: { method: 'DELETE', path: '/api/v1/global_suppressions.json' },
  addGlobalSuppressionsInBulk: { method: 'POST', path: '/api/v1/global_suppressions/bulk.json' },
  removeGlobalSuppressionsInBulk: { method: 'DELETE', path: '/api/v1/global_suppressions/bulk.json' },
  listUsers: { method: 'GET', path: '/api/v1/users' },
  createUser: { method: 'POST', path: '/api/v1/users' },
  getUser: { method: 'GET', path: '/api/v1/users/{id}' },
  updateUser: { method: 'PATCH', path: '/api/v1/users/{id}' },
  deleteUser: { method: 'DELETE', path: '/api/v1/users/{id}' },
  deactivateUser: { method: 'POST', path: '/api/v1/users/{id}/deactivate' },
  activateUser: { method: 'POST', path: '/api/v1/users/{id}/activate' },
  listUserChannelPermissions: { method: 'GET', path: '/api/v1/users/{id}/channel_permissions' },
  putUserChannelPermission: { method: 'PUT', path: '/api/v1/users/{id}/channel_permissions/{broadcast_channel_id}' },
  deleteUserChannelPermission: { method: 'DELETE', path: '/api/v1/users/{id}/channel_permissions/{broadcast_channel_id}' },
  bulkPutUserChannelPermissions: { method: 'POST', path: '/api/v1/users/{id}/channel_permissions/bulk' },
  getUserSystemPermissions: { method: 'GET', path: '/api/v1/users/{id}/system_permissions' },
  updateUserSystemPermissions: { method: 'PATCH', path: '/api/v1/users/{id}/system_permissions' },
  listAuditLog: { method: 'GET', path: '/api/v1/audit_log' },
};

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body the document gives the operation's request. */
export type RequestBody<Id extends OperationId> = JsonContent<NonNullable<operations[Id]['requestBody']>>;

/** The JSON body of the operation's 2xx answer(s). */
export type SuccessBody<Id extends OperationId> = {
  [S in keyof operations[Id]['responses']]: S extends 200 | 201 ? JsonContent<operations[Id]['responses'][S]> : never;
}[keyof operations[Id]['responses']];

/** The operation's query parameters as the document names them. */
export type QueryOf<Id extends OperationId> = NonNullable<operations[Id]['parameters']['query']>;

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[] | { [key: string]: string | number | boolean };

/**
 * The query string the API reads (express "extended" parser, docs/api-decisions.md): arrays repeat their
 * key (give it as `tags[]`), objects become `key[sub]=value` (`custom_data[plan]=pro`).
 */
export function toQueryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) params.append(key, String(item));
    } else if (typeof value === 'object') {
      for (const [sub, inner] of Object.entries(value)) params.append(`${key}[${sub}]`, String(inner));
    } else {
      params.append(key, String(value));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** `/broadcasts/{id}` with its parameters filled in, each one URL-encoded. */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}
