import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The lowest port freePort draws. */
const LOWEST = 20_000;

/**
 * The lowest port the OS hands out on its own, to a listener on port 0 or to an outgoing
 * connection (Linux's ip_local_port_range; 32768 where it cannot be read, or where it leaves
 * fewer than 1,024 ports above LOWEST to draw from).
 */
function firstEphemeralPort(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first >= LOWEST + 1_024 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

const BELOW = firstEphemeralPort();
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port that was free a moment ago, for a server that is started later (a child
 * process, or one that restarts on the same port). It is drawn at random below the ports the OS
 * hands out itself, so that no outgoing connection or port-0 listener of any test takes it in the
 * meantime, and never twice in one process.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = LOWEST + Math.floor(Math.random() * (BELOW - LOWEST));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${BELOW - 1}`);
}

/** Polls `probe` until it yields a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A slow server: a message hook (startSmtpCapture's onMessage) that answers after `ms`. */
export function answeringAfter(ms: number): () => Promise<void> {
  return () => new Promise((resolve) => setTimeout(resolve, ms));
}
