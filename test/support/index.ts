export * from './database';
export * from './fixtures';
export * from './logger';
export * from './net';
export * from './process';
export * from './secrets';
export * from './plaintext-scan';
export * from './timing';
