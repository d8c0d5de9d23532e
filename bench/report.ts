import os from 'node:os';

export type BenchCase = string;

export interface Measurement {
  engine: string;
  case: BenchCase;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  peakRssBytes: number;
  /** The plain node:http server's requests per second, measured right before this case. */
  ceilingRequestsPerSecond: number;
  /**
   * The deepest page only: its p50 and page 1's, each the median of short loads taken in turn
   * (deepest, page 1, deepest, …). The machine's speed drifts within minutes, so the two are
   * compared from loads side by side in time rather than from loads a case apart.
   */
  alternating?: { deepestP50Ms: number; pageOneP50Ms: number; rounds: number };
  /** Not Hadir: a reference server loaded like a case, with no target of its own. */
  reference?: boolean;
}

export interface Row extends Measurement {
  /** This case's requests per second as a share of the ceiling measured right before it. */
  ratioToCeiling: number;
  target?: string;
  /** Undefined for a reference. */
  met?: boolean;
}

export interface Report {
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  settings: {
    connections: number;
    durationSeconds: number;
    deepestPage: number;
    pageBytes: number;
    loadSeconds: number;
  };
  rows: Row[];
  allTargetsMet: boolean;
}

const MAX_RSS_BYTES = 250 * 1024 * 1024;

/** The PostgreSQL reference case (see bench/store-read-server.mjs). */
export const STORE_READ_CASE = 'page 1 query + write alone';

/** Applies the targets of the benchmark to each row. */
export function evaluate(measurements: Measurement[], settings: Report['settings']): Report {
  const rows: Row[] = measurements.map((m) => ({
    ...m,
    ratioToCeiling: m.requestsPerSecond / m.ceilingRequestsPerSecond,
  }));
  for (const row of rows) {
    if (row.reference) {
      row.target = 'none (reference)';
      continue;
    }
    const checks: Array<[string, boolean]> = [];
    if (row.case === 'page 1') checks.push(['≥ 10 % of ceiling', row.ratioToCeiling >= 0.1]);
    if (row.case === `page ${settings.deepestPage}`) {
      const pair = row.alternating;
      checks.push([
        pair
          ? `p50 ≤ 1.25 × page 1 (${pair.deepestP50Ms} against ${pair.pageOneP50Ms} ms, medians of ${pair.rounds} loads each, taken in turn)`
          : 'p50 ≤ 1.25 × page 1 (not measured)',
        pair !== undefined && pair.deepestP50Ms <= 1.25 * pair.pageOneP50Ms,
      ]);
    }
    if (row.case === 'repeated page' || row.case === 'repeated page, 304') {
      checks.push(['≥ 40 % of ceiling', row.ratioToCeiling >= 0.4]);
    }
    if (row.case === 'summary, 1 connection') checks.push(['p50 ≤ 2 ms', row.p50Ms <= 2]);
    checks.push(['0 errors', row.errors === 0]);
    checks.push(['RSS ≤ 250 MB', row.peakRssBytes <= MAX_RSS_BYTES]);
    row.target = checks.map(([name]) => name).join(', ');
    row.met = checks.every(([, ok]) => ok);
  }
  return {
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      node: process.version,
      platform: os.platform(),
    },
    settings,
    rows,
    allTargetsMet: rows.every((row) => row.reference || row.met),
  };
}

const HEADER = [
  'engine',
  'case',
  'req/s',
  'p50 ms',
  'p99 ms',
  'errors',
  'peak RSS MB',
  'ceiling req/s',
  '% of ceiling',
  'target',
  'met',
];

function cells(row: Row): string[] {
  return [
    row.engine,
    row.case,
    Math.round(row.requestsPerSecond).toString(),
    row.p50Ms.toFixed(1),
    row.p99Ms.toFixed(1),
    row.errors.toString(),
    (row.peakRssBytes / 1024 / 1024).toFixed(0),
    Math.round(row.ceilingRequestsPerSecond).toString(),
    (row.ratioToCeiling * 100).toFixed(1),
    row.target ?? '',
    row.reference ? '' : row.met ? 'yes' : 'NO',
  ];
}

function lines(report: Report): string[][] {
  return report.rows.map(cells);
}

/** Fixed-width text for the terminal. */
export function renderTable(report: Report): string {
  const all = [HEADER, ...lines(report)];
  const widths = HEADER.map((_, column) => Math.max(...all.map((row) => row[column]?.length ?? 0)));
  const format = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    format(HEADER),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...lines(report).map(format),
    '',
    report.allTargetsMet ? 'Every target met.' : 'Some targets were NOT met (see the met column).',
  ].join('\n');
}

export function renderMarkdown(report: Report): string {
  const { machine, settings } = report;
  return [
    '# Benchmark results',
    '',
    `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ${machine.platform}.`,
    `${settings.connections} connections, ${settings.durationSeconds} s per case after a warm-up. The ceiling is a plain node:http server answering with the bytes of a 200-row page (${settings.pageBytes} bytes), loaded the same way right before each case.`,
    ...(report.rows.some((row) => row.reference)
      ? [
          '',
          `A reference row is not Hadir and has no target: "${STORE_READ_CASE}" is a plain node:http server that, per request, runs Hadir's page-1 query on PostgreSQL and answers with ${settings.pageBytes} bytes of its text (bench/store-read-server.mjs).`,
        ]
      : []),
    '',
    `| ${HEADER.join(' | ')} |`,
    `| ${HEADER.map(() => '---').join(' | ')} |`,
    ...lines(report).map((row) => `| ${row.join(' | ')} |`),
    '',
    report.allTargetsMet ? 'Every target met.' : 'Some targets were not met.',
    '',
  ].join('\n');
}
