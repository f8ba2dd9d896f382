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
export * from './subscribers/subscriber-events';
export * from './subscribers/create-subscriber';
export * from './subscribers/update-subscriber';
export * from './subscribers/find-subscriber';
export * from './subscribers/list-subscribers';
export * from './subscribers/change-subscriber';
export * from './subscribers/activate-subscriber';
export * from './subscribers/deactivate-subscriber';
export * from './subscribers/unsubscribe-subscriber';
export * from './subscribers/resubscribe-subscriber';
export * from './subscribers/subscriber-tags';
export * from './subscribers/redact-subscriber';
export * from './subscribers/confirm-subscription';
export * from './subscribers/send-confirmation-email';
