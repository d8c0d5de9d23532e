import { describe, expect, it } from 'vitest';
import { loadConfig, serverSqliteReaderThreads } from '../../src/config.ts';

describe('SQLite page reader threads', () => {
  it('default to one per core, the cores shared among the workers, at most 4', () => {
    expect(serverSqliteReaderThreads(1, 2)).toBe(2);
    expect(serverSqliteReaderThreads(2, 2)).toBe(1);
    expect(serverSqliteReaderThreads(2, 8)).toBe(4);
    expect(serverSqliteReaderThreads(1, 16)).toBe(4);
    expect(serverSqliteReaderThreads(4, 2)).toBe(1);
  });

  it('follow WORKERS when SQLITE_READER_THREADS is unset, and the variable when set', () => {
    expect(loadConfig({ WORKERS: '3' }).sqliteReaderThreads).toBe(serverSqliteReaderThreads(3));
    expect(loadConfig({}).sqliteReaderThreads).toBe(serverSqliteReaderThreads(1));
    expect(loadConfig({ SQLITE_READER_THREADS: '0' }).sqliteReaderThreads).toBe(0);
    expect(() => loadConfig({ SQLITE_READER_THREADS: '17' })).toThrow(/SQLITE_READER_THREADS/);
  });
});
