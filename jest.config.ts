import type { Config } from 'jest';

// One PostgreSQL for the whole run (global setup); every test file gets its own database
// cloned from a migrated template, so files run in parallel without sharing state.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@mailcast/(domain|core|adapters|devkit)$': '<rootDir>/packages/$1/src',
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
