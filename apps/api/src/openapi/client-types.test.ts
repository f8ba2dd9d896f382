import { ROUTES } from '@mailcast/client';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_DOCUMENT } from './document';
import { HTTP_METHODS } from './test-support/match-document';

const ROOT = path.resolve(__dirname, '../../../..');
type Json = Record<string, any>;
const doc = OPENAPI_DOCUMENT as Json;

describe('@mailcast/client is checked against the OpenAPI document', () => {
  it('commits types generated from the current document (npm run generate:client)', () => {
    // openapi-typescript is ESM-only: the generator runs in a child Node process.
    const generated = execFileSync(process.execPath, ['scripts/generate-client-types.mjs', '--stdin'], {
      cwd: ROOT,
      input: JSON.stringify(doc),
      encoding: 'utf8',
    });
    const committed = readFileSync(path.join(ROOT, 'packages/client/src/generated/openapi.ts'), 'utf8');
    // Compared as a whole; a mismatch means the document changed without `npm run generate:client`.
    expect(committed === generated).toBe(true);
    expect(committed).toContain('createBroadcast: {');
  });

  it('calls each operation at the method and path the document gives it', () => {
    const located: Record<string, string> = {};
    for (const [route, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of HTTP_METHODS) {
        if (item[method]) located[item[method].operationId] = `${method.toUpperCase()} ${route}`;
      }
    }
    for (const [operationId, route] of Object.entries(ROUTES)) {
      expect([operationId, `${route.method} ${route.path}`]).toEqual([operationId, located[operationId]]);
    }
    // Every authenticated operation of the document has a client method.
    const authenticated = Object.entries(located)
      .filter(([, where]) => where.includes(' /api/v1/') && !/\/openapi(\.json)?$/.test(where))
      .map(([id]) => id)
      .sort();
    expect(Object.keys(ROUTES).sort()).toEqual(authenticated);
  });
});
