import type { WebhookDestinations, WebhookPost, WebhookResult, WebhookSender } from '@mailcast/core';
import type * as Got from 'got';
import { createRequire } from 'node:module';
import { REFUSED_DESTINATION_CODE, destinationAllowed, forbiddenLiteral, guardedLookup } from './address-policy';

/**
 * got, loaded with the first POST: processes that never post in their own event loop (the api;
 * the dispatcher's main thread, whose POSTs run on its webhook thread) do not carry its code,
 * about 20 MB of a fresh process's RSS (docs/broadcasts-and-sending.md, "Memory").
 */
let loadedGot: Got.Got | undefined;
const requireModule = createRequire(__filename);
const gotInstance = (): Got.Got => (loadedGot ??= (requireModule('got') as typeof Got).default);

/** Spec: Delivery request. docs/webhooks.md: the service name is Mailcast. */
export const WEBHOOK_USER_AGENT = 'Mailcast-Webhooks/1.0';

/** Enough of a receiver's answer to diagnose it; the rest is never read. */
export const MAX_RESPONSE_BODY_BYTES = 16 * 1024;

export interface WebhookHttpOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE: http:// and private destinations, for development and tests. */
  allowPrivate: boolean;
}

/**
 * POSTs one signed delivery with got: no retries (the domain's schedule decides), no redirects
 * (a redirect could lead anywhere), the contract's time-out, and the destination checked on the
 * address actually dialled unless private destinations are allowed.
 */
export class GotWebhookSender implements WebhookSender {
  constructor(private readonly options: WebhookHttpOptions) {}

  async post(request: WebhookPost): Promise<WebhookResult> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { kind: 'failed', reason: 'refused_destination', message: 'invalid URL' };
    }
    if (!this.options.allowPrivate) {
      // A literal address never goes through the lookup, so it is checked here; names are
      // checked by guardedLookup on the address actually dialled.
      const refusal = url.protocol === 'https:' ? forbiddenLiteral(url.hostname) : 'only https URLs are allowed';
      if (refusal !== null) return { kind: 'failed', reason: 'refused_destination', message: refusal };
    }

    const got = gotInstance();
    return new Promise<WebhookResult>((resolve) => {
      let status: number | undefined;
      let received = 0;
      const chunks: Buffer[] = [];
      let settled = false;
      const settle = (result: WebhookResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      const answer = () => settle({ kind: 'response', status: status ?? 0, body: Buffer.concat(chunks).toString('utf8') });

      const method = request.method ?? 'POST';
      const stream = got.stream(url, {
        method,
        ...(method === 'GET' ? {} : { body: request.body }),
        headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...request.headers },
        timeout: { request: this.options.timeoutMs },
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        ...(this.options.allowPrivate ? {} : { dnsLookup: guardedLookup as never }),
      });
      stream.on('response', (response: { statusCode: number }) => {
        status = response.statusCode;
      });
      stream.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_BODY_BYTES - received;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        received += chunk.length;
        if (received >= MAX_RESPONSE_BODY_BYTES) {
          // The status is known; the rest of a large body is not worth waiting for.
          answer();
          stream.destroy();
        }
      });
      stream.on('end', answer);
      stream.on('error', (error: Got.RequestError) => {
        if (error.name === 'TimeoutError') {
          settle({ kind: 'failed', reason: 'timeout', message: `no response within ${this.options.timeoutMs} ms` });
        } else if (error.code === REFUSED_DESTINATION_CODE) {
          settle({ kind: 'failed', reason: 'refused_destination', message: error.message });
        } else if (status !== undefined) {
          answer(); // the receiver answered, then broke the body off
        } else {
          settle({ kind: 'failed', reason: 'network', message: error.message });
        }
      });
    });
  }
}

/** Registration-time check of a webhook URL (the same policy is applied again at connect time). */
export class DnsWebhookDestinations implements WebhookDestinations {
  constructor(private readonly options: { allowPrivate: boolean }) {}

  async check(raw: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'is not a valid URL' };
    }
    if (url.protocol !== 'https:' && !(this.options.allowPrivate && url.protocol === 'http:')) {
      return { ok: false, reason: 'must use HTTPS' };
    }
    if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry credentials' };
    if (this.options.allowPrivate) return { ok: true };
    return destinationAllowed(url.hostname);
  }
}
