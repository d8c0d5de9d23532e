import type { KeyVerification } from '../keys/keys.service.ts';

/** What the access log records of a data request: identifiers and counts, never a value. */
export interface AccessRecord {
  campaignId?: string;
  fieldKeys?: string[];
  rows?: number;
  /** The replica answered (DATABASE_READ_URL; see ReplicaChoice). */
  fromReplica?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by key authentication on every data route, before the rate limit runs. */
    keyVerification?: KeyVerification;
    accessRecord?: AccessRecord;
    /** Set by the rate limit on conditional requests: counts one that gets a full response. */
    chargeRateLimit: (() => Promise<void>) | null;
    /** Set when the client closed the connection before its answer was sent. */
    clientGone: boolean;
  }
}
