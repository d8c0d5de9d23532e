/** PostgreSQL SQLSTATE classes that mean "the server is not there right now", not a bad query. */
const PG_UNAVAILABLE_STATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: statement_timeout, the server too busy to answer in time
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

const SQLITE_UNAVAILABLE_CODES = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);

const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  // pg's own query_timeout: the server did not answer at all.
  'Query read timeout',
  'Connection terminated',
  'Client has encountered a connection error',
  'terminating connection',
];

/** True when an error means the store cannot be reached, so the request may succeed later. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (PG_UNAVAILABLE_STATES.has(code) || NETWORK_CODES.has(code)) return true;
    if ([...SQLITE_UNAVAILABLE_CODES].some((prefix) => code.startsWith(prefix))) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((text) => error.message.includes(text))) return true;
  return error.cause !== undefined && isStoreUnavailable(error.cause);
}

/** SQLite and PostgreSQL codes, and the system's, for "no space left to write". */
const FULL_CODES = new Set(['SQLITE_FULL', '53100', 'ENOSPC']);

/**
 * True when an error means the store has no room to write (a full disk): reads still work, so
 * this is not an outage, but no write can succeed until space is freed.
 */
export function isStoreFull(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  return error.cause !== undefined && isStoreFull(error.cause);
}

/** PostgreSQL rolled the transaction back to break a deadlock or keep it serializable. */
const PG_CONFLICT_STATES = new Set(['40P01', '40001']);

/**
 * True when a transaction failed only because another one ran into it (a deadlock, a
 * serialization failure): the same transaction, run again from its start, may well succeed.
 */
export function isTransactionConflict(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && PG_CONFLICT_STATES.has(code)) return true;
  }
  return false;
}

/** PostgreSQL's refusals of a connection: who, and to which database. */
const PG_CONNECTION_REFUSALS: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the user may not connect',
  '3D000': 'that database does not exist',
};

/**
 * Why the store cannot be used at all, in words an operator can act on (nothing there, refused,
 * no such database), or undefined when the error is of another kind.
 */
export function unreachableReason(error: unknown): string | undefined {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && PG_CONNECTION_REFUSALS[code]) {
      return `${PG_CONNECTION_REFUSALS[code]} (${cause.message})`;
    }
    // PgBouncer refuses the session settings Hadir sends at connection unless told it is there.
    if (cause.message.includes('unsupported startup parameter')) {
      return `a connection pooler refused a session setting (${cause.message}): behind PgBouncer in transaction mode, add ?pgbouncer=true to DATABASE_URL`;
    }
  }
  if (!isStoreUnavailable(error)) return undefined;
  const deepest = (() => {
    let cause = error as Error;
    while (cause.cause instanceof Error) cause = cause.cause;
    return cause;
  })();
  return `nothing answers there (${deepest.message})`;
}
