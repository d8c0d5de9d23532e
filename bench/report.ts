import os from 'node:os';
import { type AblationRow, DEVICES, EARNS_ITS_PLACE, gain } from './ablation.ts';
import { type ComparisonRow, MAX_LOSS } from './against.ts';
import type { CaseName } from './cases.ts';
import type { CpuSplit } from './cpu-split.ts';
import type { ImportRow } from './import.ts';
import type { LoadResult, Pair } from './load.ts';

/** One case of the main table: loaded right after the ceiling server, on one server. */
export interface CaseRow extends LoadResult {
  engine: string;
  case: CaseName;
  /** The plain node:http server's requests per second, measured right before this case. */
  ceilingRequestsPerSecond: number;
  /** The deepest page only: its p50 against page 1's, from loads taken in turn. */
  deepestAgainstPageOne?: Pair;
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
  /** PostgreSQL page 1 against the bare reference server, loaded in turn (a: reference, b: Hadir). */
  reference?: {
    pair: Pair;
    cpu: { reference: CpuSplit; hadir: CpuSplit };
    target: number;
    met: boolean;
  };
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
/** PostgreSQL's uncached page 1, as a share of the bare reference server's. */
export const REFERENCE_TARGET = 0.85;

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
  checks.push(['RSS ≤ 250 MB', row.peakRssBytes <= MAX_RSS_BYTES]);
  return { target: checks.map(([name]) => name).join(', '), met: checks.every(([, ok]) => ok) };
}

/** Applies every target of the benchmark. */
export function evaluate(input: {
  settings: Report['settings'];
  cases: CaseRow[];
  reference?: { pair: Pair; cpu: { reference: CpuSplit; hadir: CpuSplit } };
  ablation?: AblationRow[];
  imports?: ImportRow[];
  comparison?: { against: string; rows: ComparisonRow[] };
}): Report {
  const cases = input.cases.map((row) => ({ ...row, ...caseTarget(row) }));
  const reference = input.reference && {
    ...input.reference,
    target: REFERENCE_TARGET,
    met:
      input.reference.pair.ratio >= REFERENCE_TARGET &&
      input.reference.pair.b.peakRssBytes <= MAX_RSS_BYTES,
  };
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
  // The row with the heap settings off only shows whether they pay; it has no target.
  const imports = input.imports?.map((row) => ({
    ...row,
    met: row.heap === 'V8 defaults' || row.peakRssBytes <= MAX_RSS_BYTES,
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
    ...(reference ? { reference } : {}),
    ...(ablation ? { ablation } : {}),
    ...(comparison ? { comparison } : {}),
    ...(imports ? { imports } : {}),
    allTargetsMet:
      cases.every((row) => row.met) &&
      (reference?.met ?? true) &&
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
    `${settings.durationSeconds} s per case after a warm-up, each right after the ceiling: a plain node:http server answering with the bytes of a 200-row page (${settings.pageBytes} bytes).`,
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
        percent(row.requestsPerSecond / row.ceilingRequestsPerSecond),
        row.target,
        row.met ? 'yes' : 'NO',
      ]),
    ),
  ];
  const pairNote = `medians of ${settings.pairRounds} loads of ${settings.pairSeconds} s each, the two loaded in turn`;
  if (report.reference) {
    const { pair, cpu, target, met } = report.reference;
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
      '## PostgreSQL page 1 against the bare reference',
      '',
      `The reference (bench/store-read-server.mjs) runs Hadir's page query and writes the page's size of its text, nothing else; ${pairNote}.`,
      '',
      ...table(
        ['reference req/s', 'Hadir req/s', 'Hadir / reference', 'target', 'met'],
        [
          [
            Math.round(pair.a.requestsPerSecond).toString(),
            Math.round(pair.b.requestsPerSecond).toString(),
            percent(pair.ratio),
            `≥ ${percent(target)}`,
            met ? 'yes' : 'NO',
          ],
        ],
      ),
      '',
      `CPU per request, in ms, from one more load of ${settings.pairSeconds} s each: the machine's cores are shared by the server, PostgreSQL and the load generator, so the most Hadir can reach against the reference is their totals' ratio, ${percent(total(cpu.reference) / total(cpu.hadir))} in this run.`,
      '',
      ...table(
        ['server', 'req/s', 'server ms', 'PostgreSQL ms', 'load generator ms', 'total ms'],
        [cpuRow('reference', cpu.reference), cpuRow('Hadir', cpu.hadir)],
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
      'A generated export of a million respondents, imported by `hadir import` into an empty database, in a process of its own. Target: peak RSS ≤ 250 MB. The last row starts the CLI without the young-generation size `bin/hadir` gives an import, to show whether it still pays.',
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
