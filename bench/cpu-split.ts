import { readdirSync, readFileSync } from 'node:fs';
import { type Load, load } from './load.ts';
import type { ServerProcess } from './processes.ts';

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** Where a request's CPU goes: the server, PostgreSQL, and the load generator (ms per request). */
export interface CpuSplit {
  requestsPerSecond: number;
  serverMs: number;
  postgresMs: number;
  loadMs: number;
}

/** utime + stime of a process, all its threads included, in ms; 0 once it is gone. */
function processMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Each PostgreSQL process on the machine, by pid: the bench's cluster is the only one running. */
function postgresProcesses(): Map<number, number> {
  const times = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') {
        times.set(Number(entry), processMs(Number(entry)));
      }
    } catch {}
  }
  return times;
}

/**
 * What PostgreSQL's processes spent between two readings: the growth of each one still running,
 * all of a new one's. A backend that exited meanwhile (an idle pool connection closing) took its
 * time with it; subtracting its earlier total would make the sum negative.
 */
function postgresMsSince(before: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of postgresProcesses()) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

/** CPU spent so far by a server, PostgreSQL and this process (the load generator), in ms. */
export interface CpuTotals {
  serverMs: number;
  postgresMs: number;
  loadMs: number;
}

/** Starts counting; the function returned gives what each spent since, in ms. */
export function watchCpu(serverPid: number): () => CpuTotals {
  const before = {
    server: processMs(serverPid),
    postgres: postgresProcesses(),
    load: process.cpuUsage(),
  };
  return () => {
    const loadUsage = process.cpuUsage(before.load);
    return {
      serverMs: processMs(serverPid) - before.server,
      postgresMs: postgresMsSince(before.postgres),
      loadMs: (loadUsage.user + loadUsage.system) / 1000,
    };
  };
}

/** Totals divided by the requests they served. */
export function perRequest(totals: CpuTotals, requests: number): CpuTotals {
  return {
    serverMs: totals.serverMs / requests,
    postgresMs: totals.postgresMs / requests,
    loadMs: totals.loadMs / requests,
  };
}

/**
 * Loads a server and splits the CPU its requests cost between the server, PostgreSQL and the
 * load generator (this process). On a machine of two cores, what a server can serve is bounded by
 * two cores over their sum.
 */
export async function measureCpuSplit(
  server: ServerProcess,
  request: Load,
  seconds: number,
): Promise<CpuSplit> {
  const spent = watchCpu(server.pid);
  const result = await load(server, request, seconds);
  return {
    requestsPerSecond: result.requestsPerSecond,
    ...perRequest(spent(), result.requestsPerSecond * seconds),
  };
}
