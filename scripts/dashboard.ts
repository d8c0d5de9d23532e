/**
 * The Grafana dashboard of deploy/grafana/hadir.json, as code: each panel's queries name series
 * Hadir exports (a test checks them against the metrics' registry), and `npm run dashboard`
 * writes the file. Rows follow the path of a change: the platform's commit, ingest, the stores,
 * the data API, then what leaves for partners (notifications and deliveries), then the processes.
 */

type Unit = 's' | 'reqps' | 'percentunit' | 'bytes' | 'short' | 'ops';

interface Panel {
  title: string;
  description: string;
  unit: Unit;
  /** PromQL, each with its legend. */
  queries: Array<{ expr: string; legend: string }>;
}

const DATA_API = 'route=~"/developer/v1/.*"';

const ROWS: Array<{ title: string; panels: Panel[] }> = [
  {
    title: 'From the platform: ingest',
    panels: [
      {
        title: 'Commit to applied (p50, p99)',
        description:
          "From the platform's commit of a batch's oldest change, as the relay says it, to Hadir's commit of the batch.",
        unit: 's',
        queries: [
          {
            expr: 'histogram_quantile(0.5, sum by (le) (rate(hadir_ingest_delay_seconds_bucket[5m])))',
            legend: 'p50',
          },
          {
            expr: 'histogram_quantile(0.99, sum by (le) (rate(hadir_ingest_delay_seconds_bucket[5m])))',
            legend: 'p99',
          },
        ],
      },
      {
        title: 'Batches by outcome',
        description:
          'Ingest batches answered a second: applied, replayed, refused, conflict, too large, busy.',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (outcome) (rate(hadir_ingest_batches_total[5m]))',
            legend: '{{outcome}}',
          },
        ],
      },
      {
        title: 'Records by result',
        description: 'Records of applied batches a second: upserted, deleted, stale, kept erased.',
        unit: 'ops',
        queries: [
          { expr: 'sum by (result) (rate(hadir_ingest_records_total[5m]))', legend: '{{result}}' },
        ],
      },
    ],
  },
  {
    title: 'The stores',
    panels: [
      {
        title: 'Pool connections (PostgreSQL only)',
        description:
          'PostgreSQL pool connections of each process: total, idle, and clients waiting for one.',
        unit: 'short',
        queries: [{ expr: 'sum by (state) (hadir_db_pool_connections)', legend: '{{state}}' }],
      },
      {
        title: 'Replica lag (with a PostgreSQL replica only)',
        description: 'How far the read replica is behind the primary (-1: unknown or unreachable).',
        unit: 's',
        queries: [{ expr: 'max(hadir_replica_lag_seconds)', legend: 'lag' }],
      },
      {
        title: 'Data reads by store (with a PostgreSQL replica only)',
        description:
          'Data requests read from the replica, or from the primary when the replica could not serve them.',
        unit: 'reqps',
        queries: [
          { expr: 'sum by (store) (rate(hadir_data_reads_total[5m]))', legend: '{{store}}' },
        ],
      },
    ],
  },
  {
    title: 'The data API',
    panels: [
      {
        title: 'Requests by status class',
        description: 'Data requests answered a second, by the first digit of their status.',
        unit: 'reqps',
        queries: [
          {
            expr: `sum by (status) (label_replace(rate(hadir_http_requests_total{${DATA_API}}[5m]), "status", "\${1}xx", "status", "(\\\\d).."))`,
            legend: '{{status}}',
          },
        ],
      },
      {
        title: 'Error budget spent (5xx share)',
        description: 'The share of data requests answered 5xx; the SLO allows 0.1 %.',
        unit: 'percentunit',
        queries: [
          { expr: 'hadir:data_api_errors:ratio_rate5m', legend: '5 minutes' },
          { expr: 'hadir:data_api_errors:ratio_rate1h', legend: '1 hour' },
        ],
      },
      {
        title: 'Latency (p50, p99)',
        description: 'Time to answer a data request.',
        unit: 's',
        queries: [
          {
            expr: `histogram_quantile(0.5, sum by (le) (rate(hadir_http_request_duration_seconds_bucket{${DATA_API}}[5m])))`,
            legend: 'p50',
          },
          { expr: 'hadir:data_api_latency:p99_5m', legend: 'p99' },
        ],
      },
      {
        title: 'Refused at the door',
        description:
          'Data requests refused by the rate limit (429) or the overload guard (503), and let through when Redis failed.',
        unit: 'reqps',
        queries: [
          { expr: 'sum(rate(hadir_rate_limit_rejections_total[5m]))', legend: 'rate limit' },
          { expr: 'sum(rate(hadir_overload_rejections_total[5m]))', legend: 'overload' },
          { expr: 'sum(rate(hadir_rate_limit_store_failures_total[5m]))', legend: 'Redis failed' },
        ],
      },
      {
        title: 'Response cache',
        description: 'Response-cache lookups a second, by result.',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (result) (rate(hadir_response_cache_lookups_total[5m]))',
            legend: '{{result}}',
          },
        ],
      },
    ],
  },
  {
    title: 'To partners: notifications and deliveries',
    panels: [
      {
        title: 'Oldest due notification',
        description: 'How long the oldest due notification delivery has waited to be sent.',
        unit: 's',
        queries: [
          { expr: 'max(hadir_notification_oldest_due_seconds)', legend: 'oldest due' },
          {
            expr: 'max(hadir_notification_oldest_undelivered_seconds)',
            legend: 'oldest undelivered',
          },
        ],
      },
      {
        title: 'Notification attempts by outcome',
        description: 'Attempts a second: delivered, retrying, failed, skipped, refused.',
        unit: 'ops',
        queries: [
          {
            expr: 'sum by (outcome) (rate(hadir_notification_deliveries_total[5m]))',
            legend: '{{outcome}}',
          },
          { expr: 'max(hadir_notification_queue_depth)', legend: 'waiting' },
        ],
      },
      {
        title: 'Endpoints by state',
        description: 'Notification endpoints on and delivering, on and failing, and turned off.',
        unit: 'short',
        queries: [{ expr: 'max by (state) (hadir_notification_endpoints)', legend: '{{state}}' }],
      },
      {
        title: 'Deliveries to buckets',
        description:
          'Runs by outcome over the last hour, and how long ago the stalest delivery last delivered.',
        unit: 'short',
        queries: [
          {
            expr: 'sum by (outcome) (increase(hadir_export_runs_total[1h]))',
            legend: '{{outcome}}',
          },
          {
            expr: 'max(hadir_export_last_delivered_age_seconds) / 3600',
            legend: 'hours since the stalest delivered',
          },
          { expr: 'max(hadir_exports)', legend: 'deliveries set up' },
        ],
      },
      {
        title: 'Delivery run time and bytes',
        description: 'p95 of a run from claim to manifest, and bytes delivered a second.',
        unit: 's',
        queries: [
          {
            expr: 'histogram_quantile(0.95, sum by (le) (rate(hadir_export_run_duration_seconds_bucket[1h])))',
            legend: 'p95 run',
          },
          { expr: 'sum(rate(hadir_export_bytes_total[1h]))', legend: 'bytes/s' },
        ],
      },
    ],
  },
  {
    title: 'The processes',
    panels: [
      {
        title: 'Resident memory',
        description: 'Each process; the goal is 250 MB a serving process.',
        unit: 'bytes',
        queries: [{ expr: 'process_resident_memory_bytes', legend: '{{instance}}' }],
      },
      {
        title: 'Event loop delay (p99)',
        description:
          'How late the event loop runs what is due: requests wait this long before they are read.',
        unit: 's',
        queries: [{ expr: 'nodejs_eventloop_lag_p99_seconds', legend: '{{instance}}' }],
      },
    ],
  },
];

/** Grafana's reference to the dashboard's data-source variable, chosen on import. */
const DATASOURCE = { type: 'prometheus', uid: ['$', '{datasource}'].join('') };

const WIDTH = 24;
const HEIGHT = 8;

/** The dashboard in Grafana's JSON model (schema 39), its data source chosen on import. */
export function dashboard() {
  const panels: unknown[] = [];
  let id = 1;
  let y = 0;
  for (const row of ROWS) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: WIDTH, h: 1 },
      panels: [],
    });
    y += 1;
    const width = WIDTH / row.panels.length;
    row.panels.forEach((panel, index) => {
      panels.push({
        id: id++,
        type: 'timeseries',
        title: panel.title,
        description: panel.description,
        datasource: DATASOURCE,
        gridPos: { x: Math.round(index * width), y, w: Math.round(width), h: HEIGHT },
        fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
        options: {
          legend: { displayMode: 'list', placement: 'bottom' },
          tooltip: { mode: 'multi' },
        },
        targets: panel.queries.map((query, n) => ({
          refId: String.fromCharCode(65 + n),
          datasource: DATASOURCE,
          expr: query.expr,
          legendFormat: query.legend,
        })),
      });
    });
    y += HEIGHT;
  }
  return {
    title: 'Hadir: the whole path',
    uid: 'hadir-path',
    description:
      "From the platform's commit to the partner: ingest, the stores, the data API, notifications and deliveries.",
    tags: ['hadir'],
    timezone: 'browser',
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [{ name: 'datasource', type: 'datasource', query: 'prometheus', label: 'Prometheus' }],
    },
    panels,
  };
}

/** Every PromQL expression of the dashboard. */
export const dashboardQueries = (): string[] =>
  ROWS.flatMap((row) => row.panels.flatMap((panel) => panel.queries.map((query) => query.expr)));
