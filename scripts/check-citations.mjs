// Fails when code cites a file outside the repository, or a comment cites a doc that does not exist, or a section of it that does not: code
// cites its decisions as `docs/<file>.md`, optionally followed by a section, quoted ("Title") or
// after a comma (…md, Title). A section is a Markdown heading or a bullet's bold lead
// (`- **Title.**`) or plain lead (`- Title:`), matched from its start, case aside; a quoted
// citation may also quote a phrase of the doc.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', 'dist', '.data', '.git', 'generated']);

function* files(dir) {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) yield* files(file);
    else if (/\.(ts|tsx|mjs|js)$/.test(name)) yield file;
  }
}

const sections = new Map();
function sectionsOf(doc) {
  if (!sections.has(doc)) {
    const text = readFileSync(path.join(root, doc), 'utf8');
    const titles = [];
    for (const line of text.split('\n')) {
      const heading = /^#{1,6}\s+(.+?)\s*$/.exec(line);
      if (heading) titles.push(heading[1]);
      const bold = /^\s*(?:[-*]\s+)?\*\*(.+?)\*\*/.exec(line);
      if (bold) titles.push(bold[1]);
      const lead = /^\s*[-*]\s+([^:*]{2,60}):/.exec(line);
      if (lead) titles.push(lead[1]);
    }
    const flat = text.replace(/\s+/g, ' ').toLowerCase();
    sections.set(doc, { titles: titles.map((t) => t.replace(/[`*]/g, '').replace(/\.$/, '').toLowerCase()), flat });
  }
  return sections.get(doc);
}

// A doc's name, then a quoted section ("…" after an optional comma or space) or an unquoted one after
// a comma (up to a closing parenthesis, a semicolon, a quote or the end of the line).
const citation = /docs\/([a-z0-9-]+\.md)(?:,?\s*"([^"]+)"|,\s*([A-Z][^)";\n*]*?)(?=\s*(?:\)|;|\*\/|$|,\s*"|:|\.\s)))?/gm;
// The repository stands on its own: code cites its docs/, never the planning files outside it.
const outside = /\bCONTRACT(?:\.md)?\b|\bSTYLE\.md\b|\.\.\/shared\//g;
const problems = [];
const dirs = ['packages', 'apps', 'scripts', 'migrations', 'bench'].map((d) => path.join(root, d));
for (const dir of dirs) {
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(outside)) {
      const where = `${path.relative(root, file)}:${text.slice(0, match.index).split('\n').length}`;
      problems.push(`${where} cites ${match[0]}, which is outside the repository: cite docs/ instead`);
    }
    for (const match of text.matchAll(citation)) {
      const doc = `docs/${match[1]}`;
      const where = `${path.relative(root, file)}:${text.slice(0, match.index).split('\n').length}`;
      if (!existsSync(path.join(root, doc))) {
        problems.push(`${where} cites ${doc}, which does not exist`);
        continue;
      }
      // A quoted section may wrap onto the comment's next line.
      const section = (match[2] ?? match[3])?.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ').trim();
      if (section === undefined || section === '') continue;
      const wanted = section.replace(/[`*]/g, '').replace(/\.$/, '').toLowerCase();
      const { titles, flat } = sectionsOf(doc);
      // A quoted citation may also be a phrase of the doc itself.
      const quotedPhrase = match[2] !== undefined && flat.includes(wanted);
      if (!quotedPhrase && !titles.some((title) => title.startsWith(wanted) || wanted.startsWith(title))) {
        problems.push(`${where} cites ${doc}, "${section}", which is not a section of it`);
      }
    }
  }
}
// The docs are written in the project's own words too.
for (const name of [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]) {
  const text = readFileSync(path.join(root, name), 'utf8');
  for (const match of text.matchAll(outside)) {
    problems.push(`${name}:${text.slice(0, match.index).split('\n').length} cites ${match[0]}, which is outside the repository`);
  }
}
if (problems.length > 0) {
  console.error(`dead citations:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('every cited doc and section exists');
