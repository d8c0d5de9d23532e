/** What the access log records of a data request: identifiers and counts, never a value. */
export interface AccessRecord {
  campaignId?: string;
  fieldKeys?: string[];
  rows?: number;
  /** The replica answered (DATABASE_READ_URL; see ReplicaChoice). */
  fromReplica?: boolean;
}
