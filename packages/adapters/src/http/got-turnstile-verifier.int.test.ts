import http from 'node:http';
import { GotTurnstileVerifier } from './got-turnstile-verifier';

/** A loopback stand-in for Cloudflare's siteverify: success for the one answer it knows. */
async function siteverify(status = 200): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      bodies.push(body);
      const params = new URLSearchParams(body);
      const ok = params.get('secret') === 'the-secret' && params.get('response') === 'good-answer';
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(status === 200 ? JSON.stringify({ success: ok }) : 'oops');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/siteverify`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('GotTurnstileVerifier (docs/opt-in-forms.md, "Protections")', () => {
  it("posts the secret, the answer and the visitor's address, and believes Cloudflare's success", async () => {
    const server = await siteverify();
    try {
      const verifier = new GotTurnstileVerifier('the-secret', server.url);
      expect(verifier.enabled).toBe(true);
      expect(await verifier.verify('good-answer', '203.0.113.9')).toBe(true);
      expect(await verifier.verify('bad-answer', null)).toBe(false);
      expect(Object.fromEntries(new URLSearchParams(server.bodies[0]))).toEqual({ secret: 'the-secret', response: 'good-answer', remoteip: '203.0.113.9' });
      expect(server.bodies[1]).not.toContain('remoteip');
    } finally {
      await server.close();
    }
  });

  it('counts an error answer, or an empty answer, as not verified without asking', async () => {
    const server = await siteverify(500);
    try {
      const verifier = new GotTurnstileVerifier('the-secret', server.url);
      expect(await verifier.verify('good-answer', null)).toBe(false);
      expect(await verifier.verify('', null)).toBe(false);
      expect(server.bodies).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('is off without a secret', async () => {
    const verifier = new GotTurnstileVerifier(undefined);
    expect(verifier.enabled).toBe(false);
    expect(await verifier.verify('good-answer', null)).toBe(false);
  });
});
