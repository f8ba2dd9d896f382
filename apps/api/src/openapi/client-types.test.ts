import { ROUTES } from '@mailcast/client';
import { OPENAPI_DOCUMENT } from './document';
import { HTTP_METHODS } from './test-support/match-document';

type Json = Record<string, any>;
const doc = OPENAPI_DOCUMENT as Json;

describe('@mailcast/client is checked against the OpenAPI document', () => {
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
