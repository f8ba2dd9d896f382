import type { Registry } from '@mailcast/adapters';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The dispatcher's own small port (DISPATCHER_METRICS_PORT): liveness for an orchestrator and
 * this process's metrics (jobs handled, memory, event loop). The deployment's business figures
 * are the api's /metrics (docs/operations.md), so several dispatchers never double-count them.
 */
export interface HealthChecks {
  /** The process is up and not shutting down. */
  isHealthy(): boolean;
  /** Can it work: database reachable and schema current (the api's /readyz, for this process). */
  readiness(): Promise<{ database: boolean; migrations: boolean }>;
}

export async function startHealthServer(port: number, checks: HealthChecks, metrics: Registry): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      const ok = checks.isHealthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
      return;
    }
    if (req.method === 'GET' && req.url === '/readyz') {
      void checks.readiness().then((found) => {
        const ready = checks.isHealthy() && found.database && found.migrations;
        res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: ready ? 'ready' : 'not_ready', checks: found }));
      });
      return;
    }
    if (req.method === 'GET' && req.url === '/metrics') {
      metrics.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'Metrics unavailable' }));
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'Not found' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return server;
}

export const portOf = (server: http.Server) => (server.address() as AddressInfo).port;
