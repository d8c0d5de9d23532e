import os from 'node:os';
import { DEFAULT_RESPONSE_CACHE_MB } from '../src/config.ts';
import { type AblationRow, DEVICES, EARNS_ITS_PLACE, gain } from './ablation.ts';
import { type ComparisonRow, MAX_LOSS } from './against.ts';
import { type CaseName, DEEPEST_PAGE } from './cases.ts';
import type { CpuSplit } from './cpu-split.ts';
import type { ImportRow } from './import.ts';
import type { LoadResult, Pair } from './load.ts';
import type { MemoryRow } from './memory.ts';
import type { PostgresPages } from './postgres-pages.ts';

/** One case of the main table: loaded right after the ceiling server, on one server. */
export interface CaseRow extends LoadResult {
  engine: string;
  case: CaseName;
  /** Whether the server kept the response cache. */
  cached: boolean;
  /** The plain node:http server's requests per second, measured right before this case. */
  ceilingRequestsPerSecond: number;
  /** The deepest page only: its p50 against page 1's, from loads taken in turn. */
  deepestAgainstPageOne?: Pair;
  /** CPU per request of the server (all its threads) and of PostgreSQL (0 on SQLite), in ms. */
  cpu?: { serverMs: number; postgresMs: number };
}

export interface Report {
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  settings: {
    connections: number;
    durationSeconds: number;
    pageBytes: number;
    pairSeconds: number;
    pairRounds: number;
  };
  cases: Array<CaseRow & { target: string; met: boolean }>;
  /** Uncached PostgreSQL pages against a conventional server and the bare reference. */
  postgresPages?: PostgresPages & { checks: Check[]; met: boolean };
  /** The mixed load on serve as started (b) and left to the runtime's defaults (a). */
  memory?: Array<MemoryRow & { bound: number; met: boolean }>;
  ablation?: {
    rows: AblationRow[];
    verdicts: Array<{ device: string; best: string; keeps: boolean }>;
  };
  comparison?: { against: string; rows: ComparisonRow[]; met: boolean };
  /** The million-row import, in a process of its own: its peak memory must stay flat. */
  imports?: Array<ImportRow & { met: boolean }>;
  allTargetsMet: boolean;
}

const MAX_RSS_BYTES = 250 * 1024 * 1024;
/** A server with the response cache on may hold that much more (its default size). */
const MAX_CACHED_RSS_BYTES = MAX_RSS_BYTES + DEFAULT_RESPONSE_CACHE_MB * 1024 * 1024;
/** What the memory settings may cost in throughput against the runtime's defaults. */
const MAX_MEMORY_SETTINGS_LOSS = 0.05;

/** One target of a comparison, with whether it was met. */
export interface Check {
  name: string;
  met: boolean;
}

/** Hadir's uncached PostgreSQL pages against the conventional server and its bare page query. */
function postgresChecks(pages: PostgresPages): Check[] {
  const { cpu, pageOne, deepestPage } = pages;
  const databaseAndServer = (split: CpuSplit) => split.serverMs + split.postgresMs;
  return [
    {
      // Judged with one read per request: shared reads would meet it for any query.
      name: `PostgreSQL CPU per page read ≤ the bare page query's + 25 % (${cpu.hadirPerRead.postgresMs.toFixed(2)} against ${cpu.reference.postgresMs.toFixed(2)} ms)`,
      met: cpu.hadirPerRead.postgresMs <= 1.25 * cpu.reference.postgresMs,
    },
    {
      name: `page 1 ≥ 1.5 × conventional (${pageOne.ratio.toFixed(2)} ×)`,
      met: pageOne.ratio >= 1.5,
    },
    {
      name: `server + PostgreSQL CPU per request below conventional's (${databaseAndServer(cpu.hadir).toFixed(2)} against ${databaseAndServer(cpu.conventional).toFixed(2)} ms)`,
      met: databaseAndServer(cpu.hadir) < databaseAndServer(cpu.conventional),
    },
    {
      name: `deepest page ≥ 30 × conventional (${deepestPage.ratio.toFixed(1)} ×)`,
      met: deepestPage.ratio >= 30,
    },
    { name: 'peak RSS ≤ 250 MB', met: pageOne.b.peakRssBytes <= MAX_RSS_BYTES },
  ];
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const signed = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(0)} %`;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function caseTarget(row: CaseRow): { target: string; met: boolean } {
  const checks: Array<[string, boolean]> = [];
  if (row.engine === 'sqlite' && row.case === 'page 1') {
    checks.push(['≥ 10 % of ceiling', row.requestsPerSecond / row.ceilingRequestsPerSecond >= 0.1]);
  }
  const pair = row.deepestAgainstPageOne;
  if (pair) {
    checks.push([
      `p50 ≤ 1.25 × page 1 (${pair.a.p50Ms} against ${pair.b.p50Ms} ms in turn)`,
      pair.a.p50Ms <= 1.25 * pair.b.p50Ms,
    ]);
  }
  if (row.case === 'repeated page' || row.case === 'repeated page, 304') {
    checks.push(['≥ 40 % of ceiling', row.requestsPerSecond / row.ceilingRequestsPerSecond >= 0.4]);
  }
  if (row.case === 'summary, 1 connection') checks.push(['p50 ≤ 2 ms', row.p50Ms <= 2]);
  checks.push(['0 errors', row.errors === 0]);
  const bound = row.cached ? MAX_CACHED_RSS_BYTES : MAX_RSS_BYTES;
  checks.push([`RSS ≤ ${mb(bound)} MB`, row.peakRssBytes <= bound]);
  return { target: checks.map(([name]) => name).join(', '), met: checks.every(([, ok]) => ok) };
}

/** Applies every target of the benchmark. */
export function evaluate(input: {
  settings: Report['settings'];
  cases: CaseRow[];
  postgresPages?: PostgresPages;
  memory?: MemoryRow[];
  ablation?: AblationRow[];
  imports?: ImportRow[];
  comparison?: { against: string; rows: ComparisonRow[] };
}): Report {
  const cases = input.cases.map((row) => ({ ...row, ...caseTarget(row) }));
  const postgresPages =
    input.postgresPages &&
    (() => {
      const pages = input.postgresPages;
      const checks = postgresChecks(pages);
      return { ...pages, checks, met: checks.every((check) => check.met) };
    })();
  const memory = input.memory?.map((row) => {
    const bound = row.cached ? MAX_CACHED_RSS_BYTES : MAX_RSS_BYTES;
    return {
      ...row,
      bound,
      // The cost is judged by CPU per request, which this machine's drift moves far less than
      // requests per second.
      met:
        row.pair.b.peakRssBytes <= bound &&
        row.cpuMs[1] <= row.cpuMs[0] * (1 + MAX_MEMORY_SETTINGS_LOSS),
    };
  });
  const ablation = input.ablation && {
    rows: input.ablation,
    verdicts: DEVICES.filter((device) =>
      input.ablation?.some((row) => row.device === device.name),
    ).map((device) => {
      const rows = (input.ablation ?? []).filter((row) => row.device === device.name);
      const best = rows.reduce((top, row) =>
        Math.max(gain(row).throughput, gain(row).memory) >
        Math.max(gain(top).throughput, gain(top).memory)
          ? row
          : top,
      );
      const { throughput, memory } = gain(best);
      return {
        device: device.name,
        best: `${best.engine} ${best.case}: ${signed(throughput)} req/s, ${signed(memory)} less memory`,
        keeps: Math.max(throughput, memory) >= EARNS_ITS_PLACE,
      };
    }),
  };
  const comparison = input.comparison && {
    ...input.comparison,
    met: input.comparison.rows.every(
      (row) => row.pair.ratio >= 1 - MAX_LOSS && row.pair.b.peakRssBytes <= MAX_RSS_BYTES,
    ),
  };
  // The row with the heap settings off only shows whether they pay; it has no target. PostgreSQL
  // takes at most 1.5 times SQLite's time for the same file.
  const sqliteSeconds = (format: ImportRow['format']) =>
    input.imports?.find(
      (row) => row.engine === 'sqlite' && row.format === format && row.heap === 'import settings',
    )?.seconds ?? Number.POSITIVE_INFINITY;
  const imports = input.imports?.map((row) => ({
    ...row,
    met:
      row.heap === 'V8 defaults' ||
      (row.peakRssBytes <= MAX_RSS_BYTES &&
        (row.engine === 'sqlite' || row.seconds <= 1.5 * sqliteSeconds(row.format))),
  }));
  return {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      platform: os.platform(),
    },
    settings: input.settings,
    cases,
    ...(postgresPages ? { postgresPages } : {}),
    ...(memory ? { memory } : {}),
    ...(ablation ? { ablation } : {}),
    ...(comparison ? { comparison } : {}),
    ...(imports ? { imports } : {}),
    allTargetsMet:
      cases.every((row) => row.met) &&
      (postgresPages?.met ?? true) &&
      (memory ?? []).every((row) => row.met) &&
      (comparison?.met ?? true) &&
      (imports ?? []).every((row) => row.met),
  };
}

function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

/** The whole report as Markdown: bench/results/latest.md, and what the terminal shows. */
export function renderMarkdown(report: Report): string {
  const { machine, settings } = report;
  const out: string[] = [
    '# Benchmark results',
    '',
    `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ${machine.platform}. ${settings.connections} connections.`,
    '',
    '## Cases',
    '',
    `${settings.durationSeconds} s per case after a warm-up, each right after the ceiling: a plain node:http server answering with the bytes of a 200-row page (${settings.pageBytes} bytes). CPU per request of the server (its threads included) and of PostgreSQL, from their processes' times over the load.`,
    '',
    ...table(
      [
        'engine',
        'case',
        'req/s',
        'p50 ms',
        'p99 ms',
        'errors',
        'peak RSS MB',
        'server CPU ms',
        'PostgreSQL CPU ms',
        '% of ceiling',
        'target',
        'met',
      ],
      report.cases.map((row) => [
        row.engine,
        row.case,
        Math.round(row.requestsPerSecond).toString(),
        row.p50Ms.toFixed(1),
        row.p99Ms.toFixed(1),
        row.errors.toString(),
        mb(row.peakRssBytes),
        row.cpu ? row.cpu.serverMs.toFixed(2) : '–',
        row.cpu && row.engine === 'postgres' ? row.cpu.postgresMs.toFixed(2) : '–',
        percent(row.requestsPerSecond / row.ceilingRequestsPerSecond),
        row.target,
        row.met ? 'yes' : 'NO',
      ]),
    ),
  ];
  const pairNote = `medians of ${settings.pairRounds} loads of ${settings.pairSeconds} s each, the two loaded in turn`;
  if (report.postgresPages) {
    const { pageOne, pageOnePerRead, deepestPage, cpu, checks } = report.postgresPages;
    const total = (split: CpuSplit) => split.serverMs + split.postgresMs + split.loadMs;
    const cpuRow = (name: string, split: CpuSplit) => [
      name,
      Math.round(split.requestsPerSecond).toString(),
      split.serverMs.toFixed(2),
      split.postgresMs.toFixed(2),
      split.loadMs.toFixed(2),
      total(split).toFixed(2),
    ];
    out.push(
      '',
      '## Uncached PostgreSQL pages against a conventional server',
      '',
      `The conventional server (bench/conventional-server.mjs) is Fastify and pg written the straightforward way: a query for the key and its allow-list, a plain SELECT with OFFSET, the JSON built in Node. The bare reference (bench/store-read-server.mjs) runs Hadir's page query and writes the page's size of its text, nothing else: its PostgreSQL CPU is the page query's alone. Hadir runs as deployed (identical requests of one turn share one read, see turn batching) and with turn batching off, one read per request. Throughput: ${pairNote}.`,
      '',
      ...table(
        ['page', 'conventional req/s', 'Hadir req/s', 'Hadir / conventional', 'Hadir peak MB'],
        [
          ['1', pageOne] as const,
          ['1, one read per request', pageOnePerRead] as const,
          [String(DEEPEST_PAGE), deepestPage] as const,
        ].map(([name, pair]) => [
          name,
          Math.round(pair.a.requestsPerSecond).toString(),
          Math.round(pair.b.requestsPerSecond).toString(),
          `${pair.ratio.toFixed(2)} ×`,
          mb(pair.b.peakRssBytes),
        ]),
      ),
      '',
      `CPU per request of page 1, in ms, from one more load of ${settings.pairSeconds} s each (the server's threads included; PostgreSQL's from its processes' times). The machine's cores are shared by the server, PostgreSQL and the load generator, so throughput follows the totals.`,
      '',
      ...table(
        ['server', 'req/s', 'server ms', 'PostgreSQL ms', 'load generator ms', 'total ms'],
        [
          cpuRow('reference', cpu.reference),
          cpuRow('conventional', cpu.conventional),
          cpuRow('Hadir', cpu.hadir),
          cpuRow('Hadir, one read per request', cpu.hadirPerRead),
        ],
      ),
      '',
      ...table(
        ['target', 'met'],
        checks.map((check) => [check.name, check.met ? 'yes' : 'NO']),
      ),
    );
  }
  if (report.memory) {
    out.push(
      '',
      '## Memory: serve as started, against the runtime defaults',
      '',
      `The mixed load (every connection sending page 1, 2, a middle and the last page, two incremental pages, the summary, the campaign list and the fields in turn) on \`serve\` as the CLI starts it and on one left to V8's and glibc's own sizing; ${pairNote}. CPU per request (server and PostgreSQL) from loads in turn once more, medians. Targets: peak within the bound, at most ${percent(MAX_MEMORY_SETTINGS_LOSS)} more CPU per request (steadier here than requests per second, which the table shows too).`,
      '',
      ...table(
        [
          'engine',
          'cache',
          'defaults req/s',
          'as started req/s',
          'change',
          'defaults CPU ms',
          'as started CPU ms',
          'defaults peak MB',
          'as started peak MB',
          'bound MB',
          'met',
        ],
        report.memory.map((row) => [
          row.engine,
          row.cached ? 'on' : 'off',
          Math.round(row.pair.a.requestsPerSecond).toString(),
          Math.round(row.pair.b.requestsPerSecond).toString(),
          signed(row.pair.ratio - 1),
          row.cpuMs[0].toFixed(3),
          row.cpuMs[1].toFixed(3),
          mb(row.pair.a.peakRssBytes),
          mb(row.pair.b.peakRssBytes),
          mb(row.bound),
          row.met ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  if (report.ablation) {
    out.push(
      '',
      '## Ablation: each speed device off against all on',
      '',
      `A device keeps its place where, on some case, all on serves at least ${percent(EARNS_ITS_PLACE)} more than with it off, or peaks ${percent(EARNS_ITS_PLACE)} lower in memory; ${pairNote}.`,
      '',
      ...table(
        ['engine', 'device', 'case', 'off req/s', 'on req/s', 'gain', 'off peak MB', 'on peak MB'],
        report.ablation.rows.map((row) => [
          row.engine,
          row.device,
          row.case,
          Math.round(row.pair.a.requestsPerSecond).toString(),
          Math.round(row.pair.b.requestsPerSecond).toString(),
          signed(gain(row).throughput),
          mb(row.pair.a.peakRssBytes),
          mb(row.pair.b.peakRssBytes),
        ]),
      ),
      '',
      ...table(
        ['device', 'best case', 'earns its place'],
        report.ablation.verdicts.map((v) => [v.device, v.best, v.keeps ? 'yes' : 'NO']),
      ),
    );
  }
  if (report.comparison) {
    const { against, rows, met } = report.comparison;
    out.push(
      '',
      `## Against ${against.slice(0, 12)}`,
      '',
      `Every case on that revision and this one, their servers loaded in turn (${pairNote}). No case may lose more than ${percent(MAX_LOSS)}: ${met ? 'none does' : 'SOME DO'}.`,
      '',
      ...table(
        ['engine', 'case', 'before req/s', 'now req/s', 'change', 'before peak MB', 'now peak MB'],
        rows.map((row) => [
          row.engine,
          row.case,
          Math.round(row.pair.a.requestsPerSecond).toString(),
          Math.round(row.pair.b.requestsPerSecond).toString(),
          signed(row.pair.ratio - 1),
          mb(row.pair.a.peakRssBytes),
          mb(row.pair.b.peakRssBytes),
        ]),
      ),
    );
  }
  if (report.imports) {
    out.push(
      '',
      '## Import',
      '',
      "A generated export of a million respondents, imported by `hadir import` into an empty database, in a process of its own. Targets: peak RSS ≤ 250 MB; on PostgreSQL, at most 1.5 × the time SQLite takes for the same file. The last row leaves the import to V8's and glibc's own memory sizing, to show whether the settings it starts with still pay.",
      '',
      ...table(
        [
          'engine',
          'format',
          'heap',
          'records',
          'file MB',
          'seconds',
          'records/s',
          'peak RSS MB',
          'met',
        ],
        report.imports.map((row) => [
          row.engine,
          row.format === 'json' ? 'document' : 'JSON Lines',
          row.heap,
          row.records.toLocaleString('en'),
          (row.fileBytes / 1e6).toFixed(0),
          row.seconds.toFixed(0),
          Math.round(row.records / row.seconds).toLocaleString('en'),
          mb(row.peakRssBytes),
          row.heap === 'V8 defaults' ? '–' : row.met ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  out.push('', report.allTargetsMet ? 'Every target met.' : 'Some targets were NOT met.', '');
  return out.join('\n');
}
