export * from './database';
export { ADMIN_URL_ENV } from './env';
export * from './fixtures';
export * from './logger';
export * from './net';
export * from './process';
