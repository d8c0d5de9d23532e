import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dashboard, dashboardQueries } from '../../scripts/dashboard.ts';
import { exportedSeries } from '../helpers/exported-series.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the Grafana dashboard in deploy/grafana', () => {
  it('is the one scripts/dashboard.ts makes (npm run dashboard)', () => {
    const shipped = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/hadir.json'), 'utf8'));
    expect(shipped).toEqual(JSON.parse(JSON.stringify(dashboard())));
  });

  it('asks, in valid PromQL, only for series Hadir exports or its rules record', () => {
    const queries = dashboardQueries();
    // Each query parsed by Prometheus itself, as a recording rule.
    const folder = mkdtempSync(join(tmpdir(), 'hadir-dashboard-'));
    const file = join(folder, 'queries.yml');
    writeFileSync(
      file,
      `groups:\n  - name: dashboard\n    rules:\n${queries
        .map(
          (expr, n) =>
            `      - record: dashboard:query_${n}\n        expr: ${JSON.stringify(expr)}\n`,
        )
        .join('')}`,
    );
    const checked = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);

    const exported = exportedSeries();
    const rules = readFileSync(join(ROOT, 'deploy/prometheus/hadir-rules.yml'), 'utf8');
    const recorded = new Set([...rules.matchAll(/record: (\S+)/g)].map((match) => match[1]));
    const named = queries.flatMap((expr) => [
      ...expr.matchAll(/\b(?:hadir|process|nodejs)_[a-z0-9_]+|\bhadir:[a-z0-9_:]+/g),
    ]);
    const unknown = named
      .map((match) => match[0])
      .filter((name) => (name.includes(':') ? !recorded.has(name) : !exported.has(name)));
    expect(named.length).toBeGreaterThan(20);
    expect(unknown).toEqual([]);
  });

  it('names PostgreSQL in the title of each panel a SQLite server leaves empty', () => {
    // A SQLite store has no pool, and no replica to lag or to read from.
    const postgresOnly = [
      'hadir_db_pool_connections',
      'hadir_replica_lag_seconds',
      'hadir_data_reads_total',
    ];
    const { panels } = dashboard() as {
      panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
    };
    const needing = panels.filter(
      (panel) =>
        panel.type !== 'row' &&
        (panel.targets ?? []).every((target) =>
          postgresOnly.some((name) => target.expr.includes(name)),
        ),
    );
    expect(needing.length).toBe(3);
    for (const panel of needing) expect(panel.title).toMatch(/PostgreSQL/);
  });

  it('has no panel without a query, and one row for each part of the path', () => {
    const { panels } = dashboard() as { panels: Array<{ type: string; targets?: unknown[] }> };
    const rows = panels.filter((panel) => panel.type === 'row');
    expect(rows.length).toBe(5);
    for (const panel of panels.filter((panel) => panel.type !== 'row')) {
      expect(panel.targets?.length).toBeGreaterThan(0);
    }
  });
});
