import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingsOf } from '../helpers/doc-anchors.ts';
import { exportedSeries } from '../helpers/exported-series.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RULES = join(ROOT, 'deploy/prometheus/hadir-rules.yml');
const rules = readFileSync(RULES, 'utf8');

const promtool = (...args: string[]) =>
  spawnSync('promtool', args, { cwd: join(ROOT, 'deploy/prometheus'), encoding: 'utf8' });

describe('the alerting rules shipped in deploy/prometheus', () => {
  it('load in Prometheus, and their tests pass: a 14.4× burn pages within 5 minutes, a 1× burn never', () => {
    const checked = promtool('check', 'rules', RULES);
    expect(checked.error).toBeUndefined();
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    const tested = promtool('test', 'rules', 'hadir-rules.test.yml');
    expect(tested.status, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('SUCCESS');
  });

  it('ask only for series Hadir exports', () => {
    const exported = exportedSeries();
    const asked = new Set([...rules.matchAll(/\bhadir_[a-z_]+/g)].map((match) => match[0]));
    expect(asked.size).toBeGreaterThan(4);
    expect([...asked].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('name for each alert a runbook section of docs/operating/observability.md', () => {
    const anchors = new Set(
      headingsOf(join(ROOT, 'docs/operating/observability.md')).map((heading) => heading.anchor),
    );
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((match) => match[1]);
    const runbooks = [
      ...rules.matchAll(/runbook: docs\/operating\/observability\.md#([a-z0-9-]+)/g),
    ].map((match) => match[1] as string);
    expect(runbooks).toHaveLength(alerts.length);
    expect(runbooks.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });
});
