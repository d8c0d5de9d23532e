// Where a server's CPU goes, from the profiles `node --cpu-prof` writes (one per thread): each
// sample's self time is put in a part of the request's path by the script or native function it
// was taken in. Usage, with a server loaded meanwhile (docs/performance.md says how):
//   node bench/profile-summary.mjs PROFILE.cpuprofile [...]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Parts of the path, first match wins: [name, test on the frame's script URL or function]. */
const PARTS = [
  ['idle', (_url, fn) => fn === '(idle)'],
  [
    'promise and tick queues',
    (url, fn) =>
      fn === '(program)' ||
      fn === 'runMicrotasks' ||
      /task_queues|node:internal\/timers|node:timers|node:events/.test(url),
  ],
  ['garbage collection', (_url, fn) => fn === '(garbage collector)'],
  [
    'socket writes',
    (url, fn) => !url && /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/.test(fn),
  ],
  [
    'hand-off to threads',
    (url, fn) =>
      /node:internal\/worker|written-on-a-thread/.test(url) || (!url && fn === 'postMessage'),
  ],
  [
    'database driver',
    (url, fn) =>
      /node_modules\/(pg|pg-protocol|pg-pool|pg-types|kysely)\//.test(url) ||
      (!url && fn === 'utf8Slice') ||
      (/node:(internal\/)?buffer/.test(url) &&
        /^(toString|getEncodingOps|readInt16BE|readInt32BE)$/.test(fn)),
  ],
  ['reading rows (SQLite)', (url) => /better-sqlite3|sqlite-store/.test(url)],
  [
    'page query and its lines',
    (url, fn) =>
      /page-rows\.repository|\/prepared/.test(url) ||
      /^(splitLines|lineParts|linePosition|positionOf)$/.test(fn),
  ],
  [
    'projection (field cutter)',
    (url) => /field-cutter|field-projection|scope-projections/.test(url),
  ],
  [
    'writing the page',
    (url) => /page-body|respondent-line|byte-writer|instant\.|page-cursor/.test(url),
  ],
  ['ETag and cursor hashing', (url) => /node:internal\/crypto/.test(url)],
  ['key check', (url) => /key-auth|turn-gate|single-flight/.test(url)],
  ['rate limit', (url) => /rate-limit/.test(url)],
  ['access log', (url) => /node_modules\/pino|access-log|log-lines/.test(url)],
  ['metrics', (url) => /prom-client|metrics/.test(url)],
  [
    'framework (Fastify)',
    (url) =>
      /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify|ajv)/.test(
        url,
      ),
  ],
  [
    'HTTP in Node',
    (url) => /node:_http|node:http|node:net|node:internal\/(http|streams|stream_base)/.test(url),
  ],
  ['service code', (url) => /\/(dist\/)?src\//.test(url)],
  [
    'start-up (module loading)',
    (url, fn) =>
      /node:internal\/modules|node:internal\/bootstrap|zxcvbn/.test(url) ||
      (!url &&
        /^(internalModuleStat|lstat|readFileUtf8|open|realpathSync|compileFunction)$/.test(fn)),
  ],
  ['strings to bytes', (url, fn) => !url && fn === 'writeString'],
];

function partOf(url, fn) {
  for (const [name, test] of PARTS) if (test(url, fn)) return name;
  if (process.env.SHOW_OTHER) process.stderr.write(`other: ${fn} ${url}\n`);
  return 'other';
}

for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byPart = new Map();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const { url, functionName } = nodes.get(id).callFrame;
    const part = partOf(url, functionName);
    byPart.set(part, (byPart.get(part) ?? 0) + micros);
    total += micros;
  });
  const busy = total - (byPart.get('idle') ?? 0);
  process.stdout.write(
    `${basename(file)}: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s\n`,
  );
  for (const [part, micros] of [...byPart].sort((a, b) => b[1] - a[1])) {
    if (part === 'idle') continue;
    process.stdout.write(`  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${part}\n`);
  }
}
