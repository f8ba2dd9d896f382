// `npm test`: every test, in two runs. First the unit and integration projects, files in
// parallel; then the timing project (`*.timing.int.test.ts`: tests that bound a rate or a
// latency) one file at a time, so no other test file shares the two cores with what is timed.
// Arguments are passed to both runs (a file path runs in whichever project holds it).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const jest = createRequire(import.meta.url).resolve('jest/bin/jest');
const args = process.argv.slice(2);
const runs = [
  ['--selectProjects', 'unit', 'integration'],
  ['--selectProjects', 'timing', '--runInBand'],
];
for (const run of runs) {
  // status is null when jest was killed by a signal: a failure all the same.
  const { status } = spawnSync(process.execPath, [jest, ...run, '--passWithNoTests', ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
