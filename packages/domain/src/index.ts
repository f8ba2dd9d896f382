export * from './errors';
export * from './broadcast';
export * from './subscriber';
export * from './statistics';
export * from './timeline';
export * from './links';
export * from './signature';
export * from './retry-schedule';
export * from './secret';
export * from './events';
export * from './api-token';
export * from './smtp';
export * from './rate-limit';
export * from './email-content';
export * from './send-retry';
export * from './tracking-token';
<<<<<<< HEAD
export * from './segment';
=======
export * from './sender';
>>>>>>> main
