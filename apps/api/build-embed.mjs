// Bundles the opt-in form embed script (src/public/forms/embed) into dist/forms-embed/embed.js,
// which the api serves at /f/:identifier/embed.js. Run by the root `npm run build` after `tsc -b`
// (tsconfig.embed.json type-checks the source); esbuild only bundles. The script must stay under
// 15 KB gzipped (docs/opt-in-forms.md, "The embed script"): the build fails past it.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const here = import.meta.dirname;
const out = path.join(here, 'dist/forms-embed');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { embed: path.join(here, 'src/public/forms/embed/main.ts') },
  outdir: out,
  bundle: true,
  minify: true,
  // A classic script (not a module), so document.currentScript names the tag that loaded it.
  format: 'iife',
  target: ['es2020'],
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'warning',
});

export const EMBED_BUDGET_BYTES = 15 * 1024;
const script = readFileSync(path.join(out, 'embed.js'));
const gzipped = gzipSync(script, { level: 9 }).length;
writeFileSync(path.join(out, 'size.json'), JSON.stringify({ 'embed.js': { bytes: script.length, gzipped } }) + '\n');
if (gzipped > EMBED_BUDGET_BYTES) {
  console.error(`forms: embed.js is ${(gzipped / 1024).toFixed(1)} KB gzipped, over the 15 KB budget`);
  process.exit(1);
}
