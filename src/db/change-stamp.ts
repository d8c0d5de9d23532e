import type SqliteDatabase from 'better-sqlite3';

/**
 * A number that moves whenever the store's data may have changed, by any writer. Reads that
 * remember their rows under it (see preparedQuery's `remember`) stay exact: a write anywhere
 * changes the stamp, and the next read goes to the store again.
 */
export type ChangeStamp = () => number;

/**
 * SQLite's stamp: `PRAGMA data_version` moves when another connection (another process: the CLI,
 * another worker) commits; this connection's own writes are counted as they run, since
 * data_version ignores them. Reading the pragma starts a read transaction, as any query does, so
 * reads started in one synchronous step (a request's key and campaign) share one reading: it is
 * forgotten at the next microtask, or at once when this connection writes.
 */
export function sqliteChangeTracking(database: SqliteDatabase.Database): {
  stamp: ChangeStamp;
  noteWrite: () => void;
} {
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  let generation = 0;
  let current: number | undefined;
  const forget = () => {
    current = undefined;
  };
  return {
    stamp() {
      if (current !== undefined) return current;
      const version = dataVersion.get();
      if (version !== seenVersion) {
        seenVersion = version;
        generation += 1;
      }
      current = generation;
      queueMicrotask(forget);
      return current;
    },
    noteWrite() {
      generation += 1;
      current = undefined;
    },
  };
}
