import 'reflect-metadata';
import { createDatabase, loadConfig, migrate } from '@mailcast/adapters';
import { dataDirectory, REPO_ROOT, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { seedDevelopmentData } from './seed';

/**
 * `npm start`: the whole product on one machine for development (docs/operations.md). The embedded
 * database, the api and the dispatcher run as separate processes in their own process
 * groups; this process owns their lifetimes, so Ctrl-C stops the apps first and the database last.
 */

const say = (line: string) => process.stdout.write(`[mailcast] ${line}\n`);

interface Child {
  name: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

function start(name: string, script: string, env: NodeJS.ProcessEnv): Child {
  const child = fork(path.join(REPO_ROOT, script), [], { env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, process: child, exited };
}

async function stopChild(child: Child, timeoutMs = 25_000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  await child.exited;
  clearTimeout(timer);
}

async function waitForHealth(url: string, child: Child, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${child.name} exited during start-up`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${child.name} did not become healthy at ${url} within ${timeoutMs} ms`);
}

const children: Child[] = [];
let smtp: SmtpCapture | undefined;
let database: Child | undefined;
let stopping = false;

/** Apps first (they drain their work), then the capture server, then the database. */
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  await Promise.all(children.map((c) => stopChild(c)));
  await smtp?.close();
  if (database) await stopChild(database);
  say('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // Development only: the capture server is on loopback, which the address policy refuses
  // otherwise (docs/email-servers.md, "Addresses"). The seed below and both children use it.
  process.env.SMTP_ALLOW_PRIVATE ??= 'true';
  const config = loadConfig();
  const dataDir = dataDirectory();
  mkdirSync(path.join(dataDir, 'mail'), { recursive: true });

  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    database = start('database', 'apps/dev/dist/database.js', process.env);
    const db = database;
    const message = await new Promise<{ url?: string; error?: string }>((resolve) => {
      db.process.once('message', (m) => resolve(m as { url?: string; error?: string }));
      void db.exited.then(() => resolve({ error: 'the database process exited' }));
    });
    if (message.url === undefined) throw new Error(`embedded PostgreSQL did not start: ${message.error ?? ''}`);
    databaseUrl = message.url;
    say(`database   embedded PostgreSQL, data in ${path.join(dataDir, 'postgres')}`);
  } else {
    say('database   DATABASE_URL');
  }

  const knex = createDatabase(databaseUrl, { poolMax: 2 });
  try {
    const { applied } = await migrate(knex, databaseUrl);
    say(`migrations ${applied.length === 0 ? 'up to date' : `applied ${applied.length}`}`);
  } finally {
    await knex.destroy();
  }

  const smtpPort = Number(process.env.SMTP_CAPTURE_PORT ?? 2525);
  let received = 0;
  smtp = await startSmtpCapture({
    port: smtpPort,
    onMessage(message) {
      received += 1;
      const file = path.join(dataDir, 'mail', `${Date.now()}-${received}.eml`);
      writeFileSync(file, message.raw);
      say(`mail       ${message.from} → ${message.to.join(', ')} (${file})`);
    },
  });
  say(`smtp       capture server on 127.0.0.1:${smtp.port}, messages saved to ${path.join(dataDir, 'mail')}`);

  const seed = await seedDevelopmentData({
    config,
    databaseUrl,
    smtpPort: smtp.port,
    tokenFile: path.join(dataDir, 'dev-token'),
  });

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    // Development only: webhooks may target http:// and loopback receivers.
    WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? 'true',
  };
  const api = start('api', 'apps/api/dist/main.js', env);
  const dispatcher = start('dispatcher', 'apps/dispatcher/dist/main.js', env);
  children.push(api, dispatcher);
  for (const child of children) {
    void child.exited.then((code) => {
      if (!stopping) {
        say(`${child.name} exited unexpectedly (code ${String(code)})`);
        void shutdown(1);
      }
    });
  }
  await waitForHealth(`http://127.0.0.1:${config.port}/healthz`, api);

  say(`api        http://localhost:${config.port}/api/v1 (process ${api.process.pid})`);
  say(`docs       http://localhost:${config.port}/docs (OpenAPI: /api/v1/openapi.json)`);
  say(`health     http://localhost:${config.port}/healthz, /readyz and /metrics`);
  say(`dispatcher running (process ${dispatcher.process.pid}); scale with more: npm run start:dispatcher`);
  say(`webhooks   WEBHOOK_ALLOW_PRIVATE=${env.WEBHOOK_ALLOW_PRIVATE}: http:// and loopback receivers allowed (development only)`);
  say(`smtp hosts SMTP_ALLOW_PRIVATE=${env.SMTP_ALLOW_PRIVATE}: loopback and private email server hosts allowed (development only)`);
  if (seed.created) say(`first run  created channel ${String(seed.channelId)} with an email server at the capture server`);
  if (seed.token) say(`api token  ${seed.token}   (every permission; kept in ${path.join(dataDir, 'dev-token')})`);
  else say('api token  not available here; make one: npm run -s admin -- token create --channel ID --permissions ...');
  if (seed.firstUser) {
    say(`dashboard  sign in at http://localhost:${config.port}/app as ${seed.firstUser.email} with password ${seed.firstUser.password}`);
    say('           (sudo; shown this once: keep it, or use "forgot password": the link arrives at the capture server)');
  } else {
    say(`dashboard  http://localhost:${config.port}/app (forgot a password? the reset link arrives at the capture server)`);
  }
  say('ready. Ctrl-C stops everything.');
}

main().catch((error: unknown) => {
  say(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  void shutdown(1);
});
