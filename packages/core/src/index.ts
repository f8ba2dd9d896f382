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
export * from './sending/recipient-store';
export * from './sending/sending-options';
export * from './sending/event-data';
export * from './sending/broadcast-renderer';
export * from './sending/queue-recipients';
export * from './sending/deliver-broadcast';
export * from './sending/recover-stalled-broadcasts';
export * from './sending/tracking';
