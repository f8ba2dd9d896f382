import { MailcastClient } from '@mailcast/client';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { DocumentMatcher, expectMatchesDocument } from './match-document';
import { createHttpServer } from '../../http/server';

/**
 * A fetch that holds every request body and every answer against the OpenAPI document: a test
 * that drives the API through @mailcast/client checks the document (and the client) for free.
 */
export function documentCheckingFetch(inner: typeof fetch = globalThis.fetch): typeof fetch {
  const matcher = new DocumentMatcher();
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const sent = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const refused = matcher.checkRequest(method, url.pathname, sent);
    if (refused.length > 0) throw new Error(refused.join('\n'));
    const response = await inner(input, init);
    const text = await response.clone().text();
    const isJson = /^application\/json/.test(response.headers.get('content-type') ?? '');
    const headers = Object.fromEntries(response.headers.entries());
    expectMatchesDocument(method, url.pathname, response.status, isJson && text !== '' ? JSON.parse(text) : text, headers);
    return response;
  };
}

export interface ClientHarness {
  baseUrl: string;
  client(token: string): MailcastClient;
  close(): Promise<void>;
}

/** The app on a loopback port, and clients of it whose every answer is checked against the document. */
export async function serveForClient(app: Express): Promise<ClientHarness> {
  const server = createHttpServer(app).listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    client: (token) => new MailcastClient({ baseUrl, token, fetch: documentCheckingFetch() }),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
