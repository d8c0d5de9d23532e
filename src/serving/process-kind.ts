import cluster from 'node:cluster';
import type { Engine } from '../db/store.ts';

/**
 * What kind of serving process this is, read once at its start: which background workers it
 * runs, where it counts rate limits and who serves its metrics follow from it (see workers.ts).
 * A cluster's primary serves nothing and assembles nothing: it forks, counts the workers' rate
 * limits and adds up their metrics (see cluster.ts).
 */
export interface ProcessKind {
  readonly engine: Engine;
  /** `alone`: the only process (WORKERS=1); `cluster worker`: one of WORKERS=N on one port. */
  readonly role: 'alone' | 'cluster worker';
  /**
   * The one cluster worker of a machine that runs the jobs SQLite wants a single writer for
   * (named by the primary as it forks: Config.clusterHousekeeper). Always true when alone.
   */
  readonly housekeeper: boolean;
}

export function processKindOf(engine: Engine, clusterHousekeeper: boolean): ProcessKind {
  if (!cluster.isWorker) return { engine, role: 'alone', housekeeper: true };
  return { engine, role: 'cluster worker', housekeeper: clusterHousekeeper };
}
