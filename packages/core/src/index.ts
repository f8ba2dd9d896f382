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
export * from './broadcasts/get-broadcast-progress';
export * from './limits/check-rate-limit';
export * from './broadcasts/broadcast-events';
export * from './broadcasts/broadcast-input';
export * from './broadcasts/create-broadcast';
export * from './broadcasts/update-broadcast';
export * from './broadcasts/delete-broadcast';
export * from './broadcasts/send-broadcast';
export * from './broadcasts/schedule-broadcast';
export * from './broadcasts/cancel-schedule';
export * from './broadcasts/pause-broadcast';
export * from './broadcasts/resume-broadcast';
export * from './broadcasts/abort-broadcast';
export * from './broadcasts/start-due-broadcast';
export * from './broadcasts/sweep-due-broadcasts';
