// tsyringe's decorators need the Reflect metadata polyfill before any use case is declared.
import 'reflect-metadata';

export * from './errors';
export * from './ports';
export * from './jobs';
export * from './auth/authenticate';
export * from './auth/create-api-token';
export * from './auth/revoke-api-token';
export * from './channels/create-channel';
export * from './channels/add-email-server';
export * from './broadcasts/get-broadcast';
export * from './broadcasts/list-broadcasts';
export * from './limits/check-rate-limit';
export * from './webhooks/webhook-ports';
export * from './webhooks/webhook-endpoint-rules';
export * from './webhooks/list-webhook-endpoints';
export * from './webhooks/get-webhook-endpoint';
export * from './webhooks/create-webhook-endpoint';
export * from './webhooks/update-webhook-endpoint';
export * from './webhooks/delete-webhook-endpoint';
export * from './webhooks/test-webhook-endpoint';
export * from './webhooks/list-webhook-deliveries';
export * from './webhooks/fan-out-events';
export * from './webhooks/claim-webhook-attempts';
export * from './webhooks/send-webhook-attempt';
export * from './webhooks/record-webhook-outcomes';
export * from './webhooks/requeue-stalled-deliveries';
