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

/** Every PostgreSQL process on the machine: the bench's cluster is the only one running. */
function postgresMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') {
        total += processMs(Number(entry));
      }
    } catch {}
  }
  return total;
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
  const before = {
    server: processMs(server.pid),
    postgres: postgresMs(),
    load: process.cpuUsage(),
  };
  const result = await load(server, request, seconds);
  const loadUsage = process.cpuUsage(before.load);
  const requests = result.requestsPerSecond * seconds;
  return {
    requestsPerSecond: result.requestsPerSecond,
    serverMs: (processMs(server.pid) - before.server) / requests,
    postgresMs: (postgresMs() - before.postgres) / requests,
    loadMs: (loadUsage.user + loadUsage.system) / 1000 / requests,
  };
}
