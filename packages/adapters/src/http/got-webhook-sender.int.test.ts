import { freePort } from '@mailcast/testkit';
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { isForbiddenAddress } from './address-policy';
import { DnsWebhookDestinations, GotWebhookSender, MAX_RESPONSE_BODY_BYTES, WEBHOOK_USER_AGENT } from './got-webhook-sender';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A real HTTP receiver on loopback whose answer each test decides. */
async function receiver(answer: (req: Received, res: http.ServerResponse) => void) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      answer(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('GotWebhookSender against a real receiver', () => {
  const open = new GotWebhookSender({ timeoutMs: 1000, allowPrivate: true });
  const body = '{"id":1,"type":"test.webhook","created_at":"2026-11-22T00:00:00Z","data":{"emoji":"📨"}}';

  it('posts the body byte for byte with the given headers, the JSON type and the User-Agent', async () => {
    const hook = await receiver((_req, res) => res.writeHead(204).end());
    try {
      const headers = { 'broadcast-webhook-id': '1', 'broadcast-webhook-timestamp': '1763769600', 'broadcast-webhook-signature': 'v1,abc' };
      const result = await open.post({ url: hook.url, body, headers });
      expect(result).toEqual({ kind: 'response', status: 204, body: '' });
      const [got] = hook.received;
      expect(got!.method).toBe('POST');
      expect(got!.url).toBe('/hooks');
      expect(got!.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
      expect(got!.headers['content-type']).toBe('application/json');
      expect(got!.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
      expect(got!.headers['broadcast-webhook-id']).toBe('1');
      expect(got!.headers['broadcast-webhook-signature']).toBe('v1,abc');
      // The receiver can verify over the raw bytes it got.
      const mac = createHmac('sha256', 'k')
        .update(`1.${got!.body.toString('utf8')}`)
        .digest('base64');
      expect(mac).toBe(createHmac('sha256', 'k').update(`1.${body}`).digest('base64'));
    } finally {
      await hook.close();
    }
  });

  it('returns a non-2xx answer as a response (the caller decides to retry), with its body', async () => {
    const hook = await receiver((_req, res) => res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance'));
    try {
      await expect(open.post({ url: hook.url, body, headers: {} })).resolves.toEqual({
        kind: 'response',
        status: 503,
        body: 'down for maintenance',
      });
    } finally {
      await hook.close();
    }
  });

  it('does not follow redirects', async () => {
    const hook = await receiver((req, res) =>
      req.url === '/hooks' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end('followed'),
    );
    try {
      await expect(open.post({ url: hook.url, body, headers: {} })).resolves.toMatchObject({ kind: 'response', status: 302 });
      expect(hook.received.map((r) => r.url)).toEqual(['/hooks']);
    } finally {
      await hook.close();
    }
  });

  it('gives up after the time-out', async () => {
    const hook = await receiver(() => undefined); // never answers
    const quick = new GotWebhookSender({ timeoutMs: 300, allowPrivate: true });
    try {
      const started = Date.now();
      await expect(quick.post({ url: hook.url, body, headers: {} })).resolves.toEqual({
        kind: 'failed',
        reason: 'timeout',
        message: 'no response within 300 ms',
      });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await hook.close();
    }
  });

  it('reads at most a bounded part of a huge response', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(MAX_RESPONSE_BODY_BYTES * 8));
    });
    try {
      const result = await open.post({ url: hook.url, body, headers: {} });
      expect(result).toMatchObject({ kind: 'response', status: 200 });
      expect(result.kind === 'response' && result.body.length).toBe(MAX_RESPONSE_BODY_BYTES);
    } finally {
      await hook.close();
    }
  });

  it('reports a refused connection as a network failure', async () => {
    const port = await freePort();
    await expect(open.post({ url: `http://127.0.0.1:${port}/`, body, headers: {} })).resolves.toMatchObject({
      kind: 'failed',
      reason: 'network',
    });
  });

  describe('without WEBHOOK_ALLOW_PRIVATE (SSRF)', () => {
    const guarded = new GotWebhookSender({ timeoutMs: 1000, allowPrivate: false });

    it.each([
      ['an http:// URL', (port: number) => `http://example.com:${port}/`, 'only https URLs are allowed'],
      ['a loopback IP literal', (port: number) => `https://127.0.0.1:${port}/`, 'address 127.0.0.1 is not allowed'],
      ['an IPv6 loopback literal', (port: number) => `https://[::1]:${port}/`, 'address ::1 is not allowed'],
      ['the metadata address', () => 'https://169.254.169.254/latest/meta-data', 'address 169.254.169.254 is not allowed'],
    ])('refuses %s before connecting', async (_case, url, message) => {
      const hook = await receiver((_req, res) => res.writeHead(200).end());
      try {
        await expect(guarded.post({ url: url(hook.port), body, headers: {} })).resolves.toEqual({
          kind: 'failed',
          reason: 'refused_destination',
          message,
        });
        expect(hook.received).toHaveLength(0);
      } finally {
        await hook.close();
      }
    });

    it('refuses a hostname that resolves to loopback, at connect time', async () => {
      const hook = await receiver((_req, res) => res.writeHead(200).end());
      try {
        const result = await guarded.post({ url: `https://localhost:${hook.port}/`, body, headers: {} });
        expect(result).toEqual({
          kind: 'failed',
          reason: 'refused_destination',
          message: 'destination address is not allowed (private, loopback, link-local or reserved)',
        });
        expect(hook.received).toHaveLength(0);
      } finally {
        await hook.close();
      }
    });
  });
});

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'not-an-ip',
    // IPv4-compatible (::/96), SIIT (::ffff:0:0:0/96), 6to4 (2002::/16) and Teredo (2001::/32) forms
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::10.0.0.1',
    '::8.8.8.8',
    '::ffff:0:127.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '::ffff:0:8.8.8.8',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2002:0808:0808::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001::1',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:0a00:0001',
    '64:ff9b::10.0.0.1',
    '::ffff:127.0.0.1%eth0',
  ])('forbids %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2a00:1450:4001::1'])(
    'allows %s',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );

  describe('DnsWebhookDestinations (registration time)', () => {
    const strict = new DnsWebhookDestinations({ allowPrivate: false });
    const dev = new DnsWebhookDestinations({ allowPrivate: true });

    it.each([
      ['not a url', 'is not a valid URL'],
      ['http://example.com/hook', 'must use HTTPS'],
      ['ftp://example.com/hook', 'must use HTTPS'],
      ['https://user:pw@example.com/hook', 'must not carry credentials'],
      ['https://127.0.0.1/hook', 'address 127.0.0.1 is not allowed'],
      ['https://[::1]/hook', 'address ::1 is not allowed'],
      ['https://localhost/hook', 'localhost resolves to an address that is not allowed'],
      ['https://[::127.0.0.1]/hook', 'address ::7f00:1 is not allowed'],
      ['https://[::ffff:0:a9fe:a9fe]/hook', 'address ::ffff:0:a9fe:a9fe is not allowed'],
      ['https://[2002:7f00:1::]/hook', 'address 2002:7f00:1:: is not allowed'],
      ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'address 2001:0:4136:e378:8000:63bf:3fff:fdd2 is not allowed'],
    ])('refuses %s', async (url, reason) => {
      await expect(strict.check(url)).resolves.toEqual({ ok: false, reason });
    });

    it('accepts a public IP literal over HTTPS without a DNS look-up', async () => {
      await expect(strict.check('https://93.184.216.34/hook')).resolves.toEqual({ ok: true });
    });

    it('lets development use http:// and loopback', async () => {
      await expect(dev.check('http://127.0.0.1:4000/hook')).resolves.toEqual({ ok: true });
      await expect(dev.check('ftp://127.0.0.1/hook')).resolves.toEqual({ ok: false, reason: 'must use HTTPS' });
    });
  });
});

describe('got is loaded with the first POST', () => {
  it('is not loaded by the adapters (the api, the dispatcher main thread), and is by a POST', async () => {
    // A fresh process, the built package, as the apps load it.
    const script = `
      require(${JSON.stringify(path.resolve(__dirname, '../../dist/index.js'))});
      const { GotWebhookSender } = require(${JSON.stringify(path.resolve(__dirname, '../../dist/http/got-webhook-sender.js'))});
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('/node_modules/got/'));
      const before = loaded();
      void new GotWebhookSender({ timeoutMs: 200, allowPrivate: true })
        .post({ url: 'http://127.0.0.1:9/hooks', body: '{}', headers: {} })
        .then((result) => console.log(JSON.stringify({ before, after: loaded(), kind: result.kind })));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script]);
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true, kind: 'failed' });
  });
});
