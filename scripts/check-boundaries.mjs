// Fails CI when the domain package stops being pure: a declared dependency, or an import of
// anything but its own files and node:crypto (docs/operations.md, "Architecture").
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const domain = path.join(root, 'packages/domain');
const problems = [];

const manifest = JSON.parse(readFileSync(path.join(domain, 'package.json'), 'utf8'));
for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
  if (manifest[field] && Object.keys(manifest[field]).length > 0) {
    problems.push(`packages/domain/package.json declares ${field}: ${Object.keys(manifest[field]).join(', ')}`);
  }
}

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== 'test-support') yield* sources(file);
    } else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
      yield file;
    }
  }
}

// A module specifier: `import … from 'x'` / `export … from 'x'` at the start of a statement (the
// clause may span lines but holds no quotes), `import 'x'`, `import('x')` or `require('x')`. A
// string such as 'from' in a list is not one.
const specifier = /(?:^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*|^\s*import\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/gm;
for (const file of sources(path.join(domain, 'src'))) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(specifier)) {
    const target = match[1];
    if (target !== 'node:crypto' && !target.startsWith('./') && !target.startsWith('../')) {
      problems.push(`${path.relative(root, file)} imports '${target}'`);
    }
  }
}

// The client runs in customer code: it depends on the domain alone (for the webhook verifier).
const client = path.join(root, 'packages/client');
const clientManifest = JSON.parse(readFileSync(path.join(client, 'package.json'), 'utf8'));
for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
  const names = Object.keys(clientManifest[field] ?? {}).filter((name) => name !== '@mailcast/domain');
  if (names.length > 0) problems.push(`packages/client/package.json declares ${field}: ${names.join(', ')}`);
}
for (const file of sources(path.join(client, 'src'))) {
  for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
    const target = match[1];
    if (target !== '@mailcast/domain' && !target.startsWith('./') && !target.startsWith('../')) {
      problems.push(`${path.relative(root, file)} imports '${target}'`);
    }
  }
}

// No import cycles between a workspace's own files (type-only imports count: they still tie the
// files together for a reader). Relative imports only; a directory import means its index.ts.
function resolveRelative(from, target) {
  const base = path.resolve(path.dirname(from), target);
  for (const candidate of [base + '.ts', path.join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not this candidate
    }
  }
  return null;
}
const workspaces = ['packages', 'apps'].flatMap((group) => readdirSync(path.join(root, group)).map((name) => path.join(root, group, name, 'src')));
const edges = new Map();
for (const dir of workspaces) {
  try {
    statSync(dir);
  } catch {
    continue;
  }
  for (const file of sources(dir)) {
    const targets = [];
    for (const match of readFileSync(file, 'utf8').matchAll(specifier)) {
      if (match[1].startsWith('.')) {
        const resolved = resolveRelative(file, match[1]);
        if (resolved) targets.push(resolved);
      }
    }
    edges.set(file, targets);
  }
}
const state = new Map(); // 1: on the current path, 2: done
const stack = [];
function visit(file) {
  state.set(file, 1);
  stack.push(file);
  for (const next of edges.get(file) ?? []) {
    if (state.get(next) === 1) {
      const cycle = stack.slice(stack.indexOf(next)).concat(next);
      problems.push('import cycle: ' + cycle.map((f) => path.relative(root, f)).join(' -> '));
    } else if (!state.has(next)) {
      visit(next);
    }
  }
  stack.pop();
  state.set(file, 2);
}
for (const file of edges.keys()) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error('package boundary violated:\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log('domain boundary holds: no dependencies, imports only its own files and node:crypto');
console.log('client boundary holds: depends on @mailcast/domain alone');
console.log('no import cycles inside any package or app');
