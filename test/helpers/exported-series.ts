import { Metrics } from '../../src/http/metrics.ts';

/** Every series Hadir exports, by name (histograms by their series' names too). */
export function exportedSeries(): Set<string> {
  const metrics = new Metrics({ processMetrics: true });
  metrics.watchNotificationQueue(
    async () => ({
      pending: 0,
      oldestDueAt: null,
      oldestPendingSince: null,
      endpoints: { enabled: 0, failing: 0, disabled: 0 },
    }),
    Date.now,
  );
  metrics.watchExports(async () => ({ count: 0, oldestDeliveredAt: null }), Date.now);
  metrics.watchReplica(() => 0);
  // A PostgreSQL store's pool (SQLite has none).
  metrics.watchPool({ poolStats: () => ({ total: 0, idle: 0, waiting: 0 }) } as never);
  const names = new Set<string>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram')
      for (const end of ['_bucket', '_sum', '_count']) names.add(name + end);
  }
  return names;
}
