import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine } from '../src/db/connect.ts';
import { PROCESS_DEFAULTS } from './cases.ts';
import {
  answersFor,
  FIELDS,
  FIRST_SUBMISSION_MS,
  generator,
  pick,
  STATUSES,
  TOTAL_RESPONDENTS,
} from './seed.ts';

/** One import of the generated file, in a process of its own. */
export interface ImportRow {
  engine: Engine;
  format: 'json' | 'jsonl';
  /** `bin/hadir`'s young generation for an import, or V8's own (the setting switched off). */
  heap: 'import settings' | 'V8 defaults';
  records: number;
  fileBytes: number;
  seconds: number;
  peakRssBytes: number;
}

const IMPORT_CAMPAIGNS = 10;
const ROOT = new URL('..', import.meta.url).pathname;
const HADIR = join(ROOT, 'bin', 'hadir');

/** The records of the generated export: its campaigns first, then a million respondents. */
function* exportRecords(): Generator<{ type: 'campaign' | 'respondent'; record: object }> {
  for (let index = 0; index < IMPORT_CAMPAIGNS; index++) {
    const id = `import-${index}`;
    yield {
      type: 'campaign',
      record: {
        id,
        slug: id,
        title: `Impor ${index}`,
        eventDate: '2026-12-01T10:00:00Z',
        location: 'Jakarta',
        fields: FIELDS.map((field) => ({ ...field, label: field.key })),
      },
    };
  }
  const random = generator(7);
  for (let n = 0; n < TOTAL_RESPONDENTS; n++) {
    yield {
      type: 'respondent',
      record: {
        id: `imp-${String(n).padStart(7, '0')}`,
        campaignId: `import-${n % IMPORT_CAMPAIGNS}`,
        submittedAt: new Date(FIRST_SUBMISSION_MS + n * 1_000).toISOString(),
        attendanceStatus: pick(random, STATUSES),
        answers: answersFor(random, n),
        ipAddress: '198.51.100.7',
      },
    };
  }
}

async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  for (const line of lines) {
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  renameSync(partial, path);
}

function* documentText(): Generator<string> {
  let list = '';
  let first = true;
  for (const { type, record } of exportRecords()) {
    const name = type === 'campaign' ? 'campaigns' : 'respondents';
    if (name !== list) {
      yield list === '' ? `{"${name}":[\n` : `],\n"${name}":[\n`;
      list = name;
      first = true;
    }
    yield `${first ? '' : ',\n'}${JSON.stringify(record)}`;
    first = false;
  }
  yield ']}\n';
}

function* jsonLinesText(): Generator<string> {
  for (const { type, record } of exportRecords()) yield `${JSON.stringify({ type, ...record })}\n`;
}

/** Writes the million-row export once, as a document and as JSON Lines; kept for later runs. */
export async function importFiles(folder: string): Promise<Record<'json' | 'jsonl', string>> {
  const files = { json: join(folder, 'import-1m.json'), jsonl: join(folder, 'import-1m.jsonl') };
  if (!existsSync(files.json)) await writeLines(files.json, documentText());
  if (!existsSync(files.jsonl)) await writeLines(files.jsonl, jsonLinesText());
  return files;
}

/** Imports `file` with `hadir import` and follows the process's peak resident memory. */
export async function measureImport(options: {
  engine: Engine;
  databaseUrl: string;
  file: string;
  format: 'json' | 'jsonl';
  heap: ImportRow['heap'];
}): Promise<ImportRow> {
  const started = performance.now();
  const child = spawn(HADIR, ['import', options.file, '--json'], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'warn',
      ...(options.heap === 'V8 defaults' ? PROCESS_DEFAULTS : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let peakKb = 0;
  // VmHWM is the kernel's own high-water mark of the process's resident memory.
  const sample = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // The process has just ended.
    }
  }, 50);
  const [status] = (await once(child, 'exit')) as [number | null];
  clearInterval(sample);
  if (status !== 0) throw new Error(`hadir import ${options.file} failed:\n${stderr}`);
  const counts = JSON.parse(stdout) as {
    campaigns: { upserted: number };
    respondents: { upserted: number };
  };
  return {
    engine: options.engine,
    format: options.format,
    heap: options.heap,
    records: counts.campaigns.upserted + counts.respondents.upserted,
    fileBytes: statSync(options.file).size,
    seconds: (performance.now() - started) / 1000,
    peakRssBytes: peakKb * 1024,
  };
}
