// Bundles the dashboard (src/ui) into dist/app: one script, one stylesheet, the page and its icon.
// Run by the root `npm run build` after `tsc -b` (which type-checks src/ui); esbuild only bundles.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const here = import.meta.dirname;
const out = path.join(here, 'dist/app');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { app: path.join(here, 'src/ui/main.tsx'), 'preview-frame': path.join(here, 'src/ui/preview-frame.ts') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of ['index.html', 'preview-frame.html', 'icon.svg']) copyFileSync(path.join(here, 'src/ui', file), path.join(out, file));

// The first page loads app.js alone: its gzipped size is the budget the docs promise (150 KB).
const script = readFileSync(path.join(out, 'app.js'));
const gzipped = gzipSync(script, { level: 9 }).length;
writeFileSync(path.join(out, 'size.json'), JSON.stringify({ 'app.js': { bytes: script.length, gzipped } }) + '\n');
if (gzipped > 150 * 1024) {
  console.error(`dashboard: app.js is ${(gzipped / 1024).toFixed(1)} KB gzipped, over the 150 KB budget`);
  process.exit(1);
}

// Every script and stylesheet is also written compressed (brotli and gzip), once, at build time:
// the api serves the variant the browser accepts without compressing per request
// (docs/dashboard.md, "Bundle size").
for (const file of ['app.js', 'app.css', 'preview-frame.js']) {
  const body = readFileSync(path.join(out, file));
  writeFileSync(path.join(out, `${file}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(path.join(out, `${file}.gz`), gzipSync(body, { level: 9 }));
}
