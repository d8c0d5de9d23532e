import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnOwned } from './owned-processes.ts';
import { freePort } from './postgres-cluster.ts';
import { until } from './until.ts';

const RULES = fileURLToPath(new URL('../../deploy/prometheus/hadir-rules.yml', import.meta.url));

export interface RunningPrometheus {
  /** An instant query's result: its series, each with its labels and value. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** Whether every target has been scraped at least once. */
  scraped(): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus, scraping `targets` (host:port of metrics endpoints) every second, with the
 * shipped rules loaded, on 127.0.0.1 with a throwaway database.
 */
export async function startPrometheus(targets: string[]): Promise<RunningPrometheus> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-prometheus-'));
  const config = join(folder, 'prometheus.yml');
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - ${JSON.stringify(RULES)}\nscrape_configs:\n  - job_name: hadir\n    static_configs:\n      - targets: ${JSON.stringify(targets)}\n`,
  );
  const port = await freePort();
  const child = spawnOwned(
    'prometheus',
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  await until(async () => {
    try {
      return (await fetch(`${base}/-/ready`)).ok;
    } catch {
      return false;
    }
  }, 'Prometheus to be ready');
  return {
    async query(expr) {
      const answer = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await answer.json()) as {
        status: string;
        error?: string;
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success') throw new Error(`${expr}: ${body.error}`);
      return body.data.result;
    },
    async scraped() {
      const answer = await fetch(`${base}/api/v1/targets`);
      const body = (await answer.json()) as {
        data: { activeTargets: Array<{ health: string }> };
      };
      const active = body.data.activeTargets;
      return active.length === targets.length && active.every((t) => t.health === 'up');
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        if (child.exitCode !== null) resolve(undefined);
        else child.once('exit', resolve);
      });
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
