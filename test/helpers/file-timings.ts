import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Each test file's seconds in a whole run, kept in the repository: a fresh clone (CI) has no
 * timings of its own, and a run that starts its longest files last ends one long file late.
 * `HADIR_TEST_TIMINGS=write npm test` (and `npm run test:more`) writes them again.
 */
const TIMINGS_FILE = new URL('../file-timings.json', import.meta.url);
const ROOT = new URL('../..', import.meta.url).pathname;

type Timings = Record<string, number>;

function readTimings(): Timings {
  try {
    return JSON.parse(readFileSync(TIMINGS_FILE, 'utf8')) as Timings;
  } catch {
    return {};
  }
}

/**
 * The longest files first: this machine's last run where Vitest remembers one, else the kept
 * timings, else the largest file first (Vitest's own order).
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const kept = readTimings();
    const seconds = new Map<TestSpecification, number>();
    for (const spec of files) {
      const remembered = this.ctx.cache.getTestSpecificationResult(spec);
      const known = remembered ? remembered.duration / 1000 : kept[relative(ROOT, spec.moduleId)];
      if (known !== undefined) seconds.set(spec, known);
    }
    const timed = [...seconds.keys()].sort((a, b) => (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0));
    // A new file has no timing: it goes first, as Vitest puts unknown files, by its size.
    return [...(await super.sort(files.filter((spec) => !seconds.has(spec)))), ...timed];
  }
}

/** Prints the slowest files of the run, and with HADIR_TEST_TIMINGS=write keeps every file's. */
export class FileTimings implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const timings = modules
      .map((module) => {
        const { duration, collectDuration, setupDuration } = module.diagnostic();
        const seconds = (duration + collectDuration + setupDuration) / 1000;
        return { file: relative(ROOT, module.moduleId), seconds: Math.round(seconds * 10) / 10 };
      })
      .sort((a, b) => b.seconds - a.seconds);
    // One file or a few, run by hand: their times are on the screen already.
    if (timings.length < 10) return;
    console.log('\nslowest files:');
    for (const { file, seconds } of timings.slice(0, 8)) {
      console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
    }
    if (process.env.HADIR_TEST_TIMINGS === 'write') {
      const kept = {
        ...readTimings(),
        ...Object.fromEntries(timings.map((t) => [t.file, t.seconds])),
      };
      const sorted = Object.fromEntries(Object.entries(kept).sort(([a], [b]) => (a < b ? -1 : 1)));
      writeFileSync(TIMINGS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
    }
  }
}
