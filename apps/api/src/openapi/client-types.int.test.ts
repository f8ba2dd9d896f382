import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_DOCUMENT } from './document';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * The committed client types are what the generator makes of the current document. An
 * integration test, not a unit one: it runs openapi-typescript in a child Node process (seconds).
 */
describe('@mailcast/client generated types', () => {
  it('commits types generated from the current document (npm run generate:client)', () => {
    // openapi-typescript is ESM-only: the generator runs in a child Node process.
    const generated = execFileSync(process.execPath, ['scripts/generate-client-types.mjs', '--stdin'], {
      cwd: ROOT,
      input: JSON.stringify(OPENAPI_DOCUMENT),
      encoding: 'utf8',
    });
    const committed = readFileSync(path.join(ROOT, 'packages/client/src/generated/openapi.ts'), 'utf8');
    // Compared as a whole; a mismatch means the document changed without `npm run generate:client`.
    expect(committed === generated).toBe(true);
    expect(committed).toContain('createBroadcast: {');
  });
});
