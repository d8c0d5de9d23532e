// `npm test` (lint, types, the unit and integration projects) and `npm run test:more` (the files
// that drive other programs, and the Redis pass; see test/more-files.ts): every step runs even
// when one before it fails, and all of them are reported at the end, so that one red step never
// hides another. The exit status is the first failure's.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** The files git tracks: scratch files beside them are not the project's, and are not linted. */
function trackedFiles() {
  const listed = spawnSync('git', ['ls-files', '-z'], { encoding: 'utf8' });
  // A copy without git (an unpacked archive) lints everything Biome's settings include.
  if (listed.status !== 0) return ['.'];
  return listed.stdout.split('\0').filter(Boolean);
}

const more = process.argv[2] === '--more';
const passed = process.argv.slice(more ? 3 : 2);

const steps = more
  ? [
      { name: 'more', command: 'vitest', args: ['run', '--project', 'more', ...passed] },
      {
        name: 'redis',
        command: 'vitest',
        args: ['run', '--project', 'integration', 'test/api/data-api/rate-limit.test.ts'],
        env: { HADIR_TEST_REDIS: '1' },
      },
    ]
  : [
      {
        name: 'lint',
        command: 'biome',
        args: ['check', '--error-on-warnings', '--no-errors-on-unmatched', ...trackedFiles()],
      },
      { name: 'types', command: 'tsc', args: ['--noEmit'] },
      {
        name: 'suite',
        command: 'vitest',
        args: ['run', '--project', 'unit', '--project', 'integration', ...passed],
      },
    ];

const results = [];
for (const step of steps) {
  const started = performance.now();
  // Each tool runs on this Node.js (Hadir's own), whatever `node` the shell would find.
  const run = spawnSync(process.execPath, [`node_modules/.bin/${step.command}`, ...step.args], {
    stdio: 'inherit',
    env: { ...process.env, ...step.env },
  });
  const status = run.status ?? 1;
  results.push({ name: step.name, status, seconds: (performance.now() - started) / 1000 });
}

console.log(more ? '\nnpm run test:more:' : '\nnpm test:');
for (const { name, status, seconds } of results) {
  console.log(`  ${status === 0 ? 'passed' : 'FAILED'}  ${name.padEnd(6)} ${seconds.toFixed(1)} s`);
}
process.exitCode = results.find((result) => result.status !== 0)?.status ?? 0;
