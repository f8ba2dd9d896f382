/**
 * `npm run bench [name...]`: runs every benchmark in bench/benches.ts (or the named ones) and
 * writes one Markdown report, bench/REPORT.md, with each figure beside its ceiling and ratio,
 * the machine and the date.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BENCHES as BenchList } from './benches';
import { openBenchPostgres, parseBenchArgs, round, type BenchSection } from './harness';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${round(os.totalmem() / 2 ** 30, 1)} GiB RAM, ${os.type()} ${os.release()}, Node.js ${process.version}`;
}

function render(sections: readonly BenchSection[], started: Date): string {
  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  const lines = ['# Mailcast benchmark report', '', `- Date: ${started.toISOString()}`, `- Machine: ${machine()}`, `- Command: \`${command}\``, ''];
  for (const section of sections) {
    lines.push(`## ${section.title}`, '', section.setup, '', '| Metric | Value | Ceiling | Ratio | Target | Met |', '|---|---|---|---|---|---|');
    for (const f of section.figures) {
      const ratio = f.ceiling !== undefined && f.ceiling !== 0 ? `${round(f.value / f.ceiling, 2)}×` : '';
      const ceiling = f.ceiling !== undefined ? `${round(f.ceiling)} ${f.unit}` : '';
      const met = f.met === undefined ? '' : f.met ? 'yes' : '**no**';
      lines.push(`| ${f.metric} | ${round(f.value)} ${f.unit} | ${ceiling} | ${ratio} | ${f.target ?? ''} | ${met} |`);
    }
    for (const note of section.notes ?? []) lines.push('', `- ${note}`);
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { names: wanted, subscribers } = parseBenchArgs(process.argv.slice(2));
  // Before the cases load: they size themselves from it (benchSubscribers in bench/harness.ts).
  if (subscribers !== undefined) process.env.BENCH_SUBSCRIBERS = String(subscribers);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the line above on purpose
  const { BENCHES } = require('./benches') as { BENCHES: typeof BenchList };
  const unknown = wanted.filter((name) => !BENCHES.some((b) => b.name === name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.map((b) => b.name).join(', ')}`);
    process.exit(2);
  }
  const selected = wanted.length > 0 ? BENCHES.filter((b) => wanted.includes(b.name)) : BENCHES;
  const started = new Date();
  const postgres = await openBenchPostgres();
  const sections: BenchSection[] = [];
  try {
    for (const bench of selected) {
      const log = (message: string) => console.error(`[${bench.name}] ${message}`);
      log('starting');
      const section = await bench.run(postgres.context(log));
      sections.push(section);
      await postgres.settle(log);
      console.error(render([section], started).split('\n').slice(6).join('\n'));
    }
  } catch (error) {
    // Said before the cluster stops: its shutdown errors would otherwise hide this one.
    console.error(error);
    throw error;
  } finally {
    await postgres.close();
  }
  const report = render(sections, started);
  const file = path.join(__dirname, 'REPORT.md');
  await writeFile(file, report);
  console.log(report);
  console.error(`report written to ${file}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
