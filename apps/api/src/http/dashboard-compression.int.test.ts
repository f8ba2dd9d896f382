import express from 'express';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { dashboardRoutes } from './dashboard.routes';

/** docs/dashboard.md, "Bundle size": the build's compressed copies are what a browser gets. */
describe('the dashboard serves its built scripts compressed', () => {
  const SCRIPT = `console.log(${JSON.stringify('mailcast '.repeat(500))});`;
  const dir = mkdtempSync(path.join(tmpdir(), 'dashboard-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Mailcast</title>');
  writeFileSync(path.join(dir, 'app.js'), SCRIPT);
  writeFileSync(path.join(dir, 'app.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(dir, 'app.js.gz'), gzipSync(SCRIPT));
  writeFileSync(path.join(dir, 'app.css'), 'body{margin:0}');
  const app = express().use(dashboardRoutes(dir));
  let server: http.Server;
  beforeAll(async () => {
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  /** The response's raw bytes, undecoded (HTTP clients decode what they asked for). */
  const raw = (accept: string | null, file = '/app/app.js') =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const headers = accept === null ? {} : { 'Accept-Encoding': accept };
      http
        .get({ host: '127.0.0.1', port, path: file, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });

  it('brotli when accepted, gzip otherwise, the plain file for a browser that takes neither', async () => {
    const br = await raw('gzip, deflate, br');
    expect([br.status, br.headers['content-encoding']]).toEqual([200, 'br']);
    expect(br.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.headers['content-security-policy']).toContain("script-src 'self'");

    const gz = await raw('gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    expect(gz.body.length).toBeLessThan(SCRIPT.length / 10);

    const plain = await raw('identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
  });

  it('serves a file without a compressed copy as it is, and no path outside the build', async () => {
    const css = await raw('br, gzip', '/app/app.css');
    expect([css.status, css.headers['content-encoding'], css.body.toString()]).toEqual([200, undefined, 'body{margin:0}']);
    const outside = await raw('br, gzip', '/app/%2e%2e/%2e%2e/etc/passwd.js');
    expect(outside.status).not.toBe(200);
    expect(outside.headers['content-encoding']).toBeUndefined();
  });
});
