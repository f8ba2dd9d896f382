export * from './paths';
export * from './embedded-postgres';
export * from './resolve-database';
export * from './smtp-capture';
