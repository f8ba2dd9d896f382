import net from 'node:net';

/** The untyped messages a client may send before its startup message (PostgreSQL protocol 3). */
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/**
 * A TCP proxy in front of PostgreSQL that counts the statements its clients send: every simple
 * Query ('Q') and every extended-protocol Execute ('E') message of the frontend stream. Pointing
 * a process's DATABASE_URL at it counts that process's queries exactly, whatever the server's
 * configuration (pg_stat_statements needs shared_preload_libraries, which an embedded cluster or
 * a shared server may not have).
 */
export async function startQueryCounter(target: { host: string; port: number }): Promise<{ port: number; queries(): number; close(): Promise<void> }> {
  let queries = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
    let startup = true;
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          pending = pending.subarray(length);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) startup = false;
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'Q' || type === 'E') queries++;
        pending = pending.subarray(1 + length);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    queries: () => queries,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
