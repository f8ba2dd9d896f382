/**
 * @jest-config-loader-options {"transpileOnly": true}
 */
// jest reads this file through ts-node; type-checking it there cost about 10 s per run (tsc and
// `npm run typecheck:tests` check it instead).
import type { Config } from 'jest';

// One PostgreSQL for the integration run (global setup); every test file gets its own database
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
  // otplib's default plugins (base32 and HMAC), ESM-only; the noble plugin's nested copy of
  // @noble/hashes is reached through its path.
  '@scure/base',
  '@otplib/plugin-crypto-noble',
  '@noble/hashes',
];

/** What both projects share: the TypeScript transform and the workspace module names. */
const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
    // got 14 and part of its tree are ESM-only. Node 20 loads them natively (require(esm)),
    // but jest's module system does not, so these few are transpiled to CommonJS for tests.
    '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022', isolatedModules: true } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: {
    '^@mailcast/(domain|send-engine|core|adapters|devkit|client)$': '<rootDir>/packages/$1/src',
    // The few files core exports on their own (package.json "exports"), for worker threads.
    '^@mailcast/core/(sending/broadcast-renderer|sequences/sequence-email)$': '<rootDir>/packages/core/src/$1',
    '^@mailcast/testkit$': '<rootDir>/packages/testkit/src',
    // One testkit module alone, for a unit test that must not load the whole kit (it loads the
    // adapters, and with them pg, pg-boss and nodemailer: seconds per file).
    '^@mailcast/testkit/(.+)$': '<rootDir>/packages/testkit/src/$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/', '<rootDir>/.data/'],
  setupFiles: ['reflect-metadata'],
} satisfies Config;

/**
 * Three projects. `unit`: every `*.test.ts` that is not `*.int.test.ts`, pure code against fakes,
 * no database and no sockets (`npm run test:unit`). `integration`: `*.int.test.ts`, real
 * PostgreSQL, SMTP and HTTP on loopback. `timing`: `*.timing.int.test.ts`, integration tests
 * that bound a rate or a latency; `npm test` (scripts/test.mjs) runs them after the others, one
 * file at a time, so what they time does not share the cores with other test files.
 */
const config: Config = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['**/*.int.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.timing\\.int\\.test\\.ts$'],
      globalSetup: '<rootDir>/packages/testkit/src/global-setup.ts',
      globalTeardown: '<rootDir>/packages/testkit/src/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'timing',
      testMatch: ['**/*.timing.int.test.ts'],
      globalSetup: '<rootDir>/packages/testkit/src/global-setup.ts',
      globalTeardown: '<rootDir>/packages/testkit/src/global-teardown.ts',
    },
  ],
  maxWorkers: 2,
  // A run-wide option: jest ignores it inside a project.
  testTimeout: 30_000,
};

export default config;
