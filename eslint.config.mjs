// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const tests = ['**/*.test.ts', '**/test-support/**'];

/** Core and the send engine read time, wait and draw randomness through their ports (Clock, Timers, RandomSource). */
const TIME_THROUGH_PORTS = {
  'no-restricted-globals': [
    'error',
    ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval'].map((name) => ({
      name,
      message: 'wait through the Timers port.',
    })),
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'read time through the Clock or Timers port.' },
    { object: 'Math', property: 'random', message: 'draw randomness through the RandomSource port.' },
  ],
};

/** STYLE.md, "Layers and what each may import", made to enforce itself. */
const INFRASTRUCTURE = ['express', 'knex', 'pg', 'pg-boss', 'got', 'winston', 'nodemailer', 'liquidjs', 'smtp-server', 'joi'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node }, sourceType: 'commonjs' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: tests,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The domain: its own files and node:crypto, nothing else (no I/O, no dependencies).
    files: ['packages/domain/src/**/*.ts'],
    ignores: tests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:crypto$|\\.{1,2}/)',
              message: 'packages/domain imports only its own files and node:crypto (STYLE: Layers).',
            },
          ],
        },
      ],
    },
  },
  {
    // The application layer: domain and tsyringe; no infrastructure library, no adapter, no app.
    files: ['packages/core/src/**/*.ts'],
    ignores: tests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: INFRASTRUCTURE.map((name) => ({ name, message: 'use cases depend on ports, not on infrastructure (STYLE: Layers).' })),
          patterns: [
            { regex: '^@mailcast/(adapters|devkit|api|dispatcher|cli)', message: 'core must not import outer layers.' },
            { regex: '^node:(?!util$)', message: 'core does no I/O: take it through a port.' },
          ],
        },
      ],
      ...TIME_THROUGH_PORTS,
    },
  },
  {
    // The send engine: the domain alone; time, timers and randomness come through its ports.
    files: ['packages/send-engine/src/**/*.ts'],
    ignores: tests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@mailcast/domain$|\\.{1,2}/)',
              message: 'packages/send-engine imports only its own files and @mailcast/domain (STYLE: Layers).',
            },
          ],
        },
      ],
      ...TIME_THROUGH_PORTS,
    },
  },
  {
    // The client is published on its own: its own files and the domain (the webhook verifier).
    files: ['packages/client/src/**/*.ts'],
    ignores: tests,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!@mailcast/domain$|\\.{1,2}/)',
              message: 'packages/client imports only its own files and @mailcast/domain (it runs in customer code).',
            },
          ],
        },
      ],
    },
  },
  {
    // Adapters implement ports; they never reach into the apps.
    files: ['packages/adapters/src/**/*.ts'],
    ignores: tests,
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^@mailcast/(api|dispatcher|cli|dev)', message: 'adapters must not import the apps.' }] }],
    },
  },
);
