import type { BenchContext } from './harness';
import { cpuSeconds, round } from './harness';
import { nodeProcess as node, sinkAccepted } from './processes';

/**
 * The raw SMTP loop (bench/raw-smtp-loop.mjs), issue 41's ceiling for sending: one pre-composed
 * message written `messages` times over `sessions` SMTP sessions by a process of its own,
 * checked against the count the sink accepted, with the loop's and the sink's CPU per message.
 */
export async function rawSmtpLoop(
  context: BenchContext,
  options: { port: number; control: number; sinkPid: number; sessions: number; messages: number; file: string },
): Promise<{ rate: number; pipelining: boolean; cpuUs: number; sinkUs: number }> {
  const { port, control, sinkPid, sessions, messages, file } = options;
  context.log(`raw SMTP loop: ${messages} messages over ${sessions} sessions`);
  const before = await sinkAccepted(control);
  const sinkCpu = cpuSeconds(sinkPid);
  const loop = node(['bench/raw-smtp-loop.mjs'], {
    ...process.env,
    PORT: String(port),
    SESSIONS: String(sessions),
    MESSAGES: String(messages),
    MESSAGE_FILE: file,
  });
  const { ms, cpuMs, n, pipelining } = JSON.parse(await loop.firstLine) as { ms: number; cpuMs: number; n: number; pipelining: boolean };
  await loop.exited;
  const sinkCpuMs = (cpuSeconds(sinkPid) - sinkCpu) * 1000;
  const received = (await sinkAccepted(control)) - before;
  if (n !== messages || received !== messages) throw new Error(`the raw loop sent ${n} of ${messages} messages; the sink accepted ${received}`);
  const rate = messages / (ms / 1000);
  const cpuUs = (cpuMs * 1000) / n;
  const sinkUs = (sinkCpuMs * 1000) / n;
  context.log(`raw SMTP: ${round(rate)} msg/s${pipelining ? ', pipelined' : ''}, CPU ${round(cpuUs)} us/message, sink ${round(sinkUs)} us`);
  return { rate, pipelining, cpuUs, sinkUs };
}
