import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The dispatcher's own small port (DISPATCHER_METRICS_PORT): liveness for an orchestrator. */
export async function startHealthServer(port: number, isHealthy: () => boolean): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      const ok = isHealthy();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'ok' : 'stopping' }));
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
