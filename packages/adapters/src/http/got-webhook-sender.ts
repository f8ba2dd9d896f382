import type { WebhookDestinations, WebhookPost, WebhookResult, WebhookSender } from '@mailcast/core';
import got, { type RequestError } from 'got';
import net from 'node:net';
import { destinationAllowed, guardedLookup, isForbiddenAddress } from './address-policy';

/** Spec: Delivery request. CONTRACT: the service name is Mailcast. */
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
      if (url.protocol !== 'https:') return { kind: 'failed', reason: 'refused_destination', message: 'only https URLs are allowed' };
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (net.isIP(literal) && isForbiddenAddress(literal)) {
        return { kind: 'failed', reason: 'refused_destination', message: `address ${literal} is not allowed` };
      }
    }

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
      const answer = () =>
        settle({ kind: 'response', status: status ?? 0, body: Buffer.concat(chunks).toString('utf8') });

      const stream = got.stream.post(url, {
        body: request.body,
        headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...request.headers },
        timeout: { request: this.options.timeoutMs },
        followRedirect: false,
        throwHttpErrors: false,
        retry: { limit: 0 },
        decompress: true,
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
      stream.on('error', (error: RequestError) => {
        if (status !== undefined && settled) return;
        if (error.name === 'TimeoutError' || error.code === 'ETIMEDOUT') {
          settle({ kind: 'failed', reason: 'timeout', message: `no response within ${this.options.timeoutMs} ms` });
        } else if ((error.cause as { code?: string } | undefined)?.code === 'ERR_MAILCAST_REFUSED_DESTINATION' || error.code === 'ERR_MAILCAST_REFUSED_DESTINATION') {
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
