import type { Registry } from '@mailcast/adapters';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The dispatcher's own small port (DISPATCHER_METRICS_PORT): liveness for an orchestrator and
 * this process's metrics (jobs handled, memory, event loop). The deployment's business figures
 * are the api's /metrics (CONTRACT §1), so several dispatchers never double-count them.
 */
export async function startHealthServer(port: number, isHealthy: () => boolean, metrics: Registry): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      const ok = isHealthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
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
