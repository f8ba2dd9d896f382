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
// Added to this package by the auth work (not part of the original domain brief); exported
// because packages/core and packages/adapters import it through the barrel.
export * from './api-token';
