import type { Config } from 'jest';

// One PostgreSQL for the whole run (global setup); every test file gets its own database
// cloned from a migrated template, so files run in parallel without sharing state.
// got's ESM-only dependency tree (found by walking its package.json files, nested ones included).
const ESM_ONLY = [
  'got',
  '@sindresorhus/is',
  'byte-counter',
  'cacheable-lookup',
  'cacheable-request',
  'get-stream',
  '@sec-ant/readable-stream',
  'is-stream',
  'keyv',
  '@keyv/serialize',
  'mimic-response',
  'normalize-url',
  'responselike',
  'lowercase-keys',
  'decompress-response',
  'form-data-encoder',
  'p-cancelable',
];

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
    // got 14 and part of its tree are ESM-only. Node 20 loads them natively (require(esm)),
    // but jest's module system does not, so these few are transpiled to CommonJS for tests.
    '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: {
    '^@mailcast/(domain|core|adapters|devkit|client)$': '<rootDir>/packages/$1/src',
    '^@mailcast/testkit$': '<rootDir>/test/support',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/', '<rootDir>/.data/'],
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  maxWorkers: 2,
  testTimeout: 30_000,
};

export default config;
