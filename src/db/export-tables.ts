// The tables of scheduled deliveries to a bucket (src/exports), part of the Database of schema.ts.

/** A scheduled delivery of a key's guest lists to a bucket (see src/exports). */
export interface ExportsTable {
  id: string;
  /** The key's rotation chain: a delivery outlives a rotation, and stops with the chain. */
  lineage_id: string;
  /** The key's holder, whose key in force the run reads with. */
  account_id: string;
  bucket: string;
  /** Without slashes at either end; '' for the bucket's top. */
  prefix: string;
  endpoint: string;
  region: string;
  /** AES-256-GCM sealed JSON `{ accessKeyId, secretAccessKey }`, bound to the export's id. */
  credentials_sealed: string;
  every: '1h' | '1d';
  /** Minutes after midnight in Jakarta (daily), or after the hour (hourly). */
  at_minute: number;
  /** Comma-separated: csv, parquet, xlsx. */
  formats: string;
  /** How many runs the bucket keeps. */
  keep: number;
  created_at: number;
  created_by: string;
}

/** One run of an export: its slot's claim, its lease while it runs, and what it wrote. */
export interface ExportRunsTable {
  export_id: string;
  /** The slot's instant: the run's folder is named after it. */
  run_at: number;
  state: 'running' | 'done' | 'failed';
  attempts: number;
  lease_until: number;
  /** When a failed run is tried again; null once it is given up. */
  next_attempt_at: number | null;
  started_at: number;
  finished_at: number | null;
  files: number | null;
  rows: number | null;
  bytes: number | null;
  /** What went wrong, in words without values (a bucket's answer, never a guest's). */
  error: string | null;
}
