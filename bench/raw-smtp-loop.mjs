// @ts-check
/**
 * The sending benchmark's bare ceiling (issue 41): one pre-composed message written over
 * SESSIONS plain SMTP sessions on raw `net` sockets, as fast as one process can, with nothing
 * composed, rendered or recorded per message. Each session says EHLO once; when the server
 * offers PIPELINING (RFC 2920) a message's end of data goes in one write with the next message's
 * MAIL FROM, RCPT TO and DATA, so a message costs one write and one wait for four replies;
 * otherwise each command waits for its reply. Every reply is checked: anything but the expected
 * code ends the run with an error. Prints one JSON line: { ms, cpuMs, n, pipelining, bytes }.
 *
 * Environment: PORT, SESSIONS (10), MESSAGES, MESSAGE_FILE (the message's bytes, CRLF lines).
 */
import net from 'node:net';
import { readFileSync } from 'node:fs';

const port = Number(process.env.PORT);
const sessions = Number(process.env.SESSIONS ?? 10);
const total = Number(process.env.MESSAGES);
const raw = readFileSync(/** @type {string} */ (process.env.MESSAGE_FILE), 'latin1');
// Dot-stuffed once (RFC 5321 4.5.2) and ended with CRLF, as every client must send it.
const content = Buffer.from(
  `${raw
    .replace(/\r\n\./g, '\r\n..')
    .replace(/^\./, '..')
    .replace(/(\r\n)?$/, '\r\n')}.\r\n`,
  'latin1',
);
const envelope = Buffer.from('MAIL FROM:<news@bench.test>\r\nRCPT TO:<u1@bench.test>\r\nDATA\r\n');
const MAIL = Buffer.from('MAIL FROM:<news@bench.test>\r\n');
const RCPT = Buffer.from('RCPT TO:<u1@bench.test>\r\n');
const DATA = Buffer.from('DATA\r\n');
const QUIT = Buffer.from('QUIT\r\n');

let started = 0;
let done = 0;
let pipelining = true;

/**
 * A session's replies, one complete (last line "NNN ") at a time; the EHLO reply's PIPELINING
 * keyword is noted in `offered`.
 * @param {net.Socket} socket
 * @param {{ pipelining: boolean }} offered
 * @returns {(code: string) => Promise<string>}
 */
function replies(socket, offered) {
  let buffered = '';
  /** @type {Array<(line: string) => void>} */
  const waiting = [];
  /** @type {string[]} */
  const ready = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\r\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 2);
      if (line[3] === '-') {
        if (/PIPELINING/i.test(line)) offered.pipelining = true;
        continue;
      }
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else ready.push(line);
    }
  });
  /** @param {string} code */
  return (code) =>
    new Promise((resolve, reject) => {
      const check = (/** @type {string} */ line) => (line.startsWith(code) ? resolve(line) : reject(new Error(`expected ${code}, got ${line}`)));
      const line = ready.shift();
      if (line !== undefined) check(line);
      else waiting.push(check);
    });
}

async function session() {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('error', (error) => {
    console.error(error);
    process.exit(1);
  });
  const offered = { pipelining: false };
  const reply = replies(socket, offered);
  await reply('220');
  socket.write('EHLO bench.test\r\n');
  const last = await reply('250');
  const pipelined = offered.pipelining || /PIPELINING/i.test(last);
  if (!pipelined) pipelining = false;
  if (started >= total) return end(socket, reply);
  started++;
  if (pipelined) {
    socket.write(envelope);
    await reply('250');
    await reply('250');
    await reply('354');
    for (;;) {
      const more = started < total;
      if (more) started++;
      // The end of this message and, pipelined behind it, the next one's envelope.
      socket.write(more ? Buffer.concat([content, envelope]) : content);
      await reply('250');
      done++;
      if (!more) break;
      await reply('250');
      await reply('250');
      await reply('354');
    }
  } else {
    for (;;) {
      socket.write(MAIL);
      await reply('250');
      socket.write(RCPT);
      await reply('250');
      socket.write(DATA);
      await reply('354');
      socket.write(content);
      await reply('250');
      done++;
      if (started >= total) break;
      started++;
    }
  }
  return end(socket, reply);
}

/**
 * @param {net.Socket} socket
 * @param {(code: string) => Promise<string>} reply
 */
async function end(socket, reply) {
  socket.write(QUIT);
  await reply('221');
  socket.end();
}

const cpuBefore = process.cpuUsage();
const start = process.hrtime.bigint();
await Promise.all(Array.from({ length: sessions }, session));
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const cpu = process.cpuUsage(cpuBefore);
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, n: done, pipelining, bytes: content.length }));
