import { describe, expect, it } from 'vitest';
import { loadConfig, serverPageThreads } from '../../src/config.ts';

describe('page threads', () => {
  it('default to one per core, the cores shared among the workers, at most 4', () => {
    expect(serverPageThreads(1, 2)).toBe(2);
    expect(serverPageThreads(2, 2)).toBe(1);
    expect(serverPageThreads(2, 8)).toBe(4);
    expect(serverPageThreads(1, 16)).toBe(4);
    expect(serverPageThreads(4, 2)).toBe(1);
  });

  it('follow WORKERS when PAGE_THREADS is unset, and the variable when set', () => {
    expect(loadConfig({ WORKERS: '3' }).pageThreads).toBe(serverPageThreads(3));
    expect(loadConfig({}).pageThreads).toBe(serverPageThreads(1));
    expect(loadConfig({ PAGE_THREADS: '0' }).pageThreads).toBe(0);
    expect(() => loadConfig({ PAGE_THREADS: '17' })).toThrow(/PAGE_THREADS/);
  });

  it('still read SQLITE_READER_THREADS, their former name, when PAGE_THREADS is unset', () => {
    expect(loadConfig({ SQLITE_READER_THREADS: '3' }).pageThreads).toBe(3);
    expect(loadConfig({ SQLITE_READER_THREADS: '3', PAGE_THREADS: '1' }).pageThreads).toBe(1);
    expect(() => loadConfig({ SQLITE_READER_THREADS: '17' })).toThrow(/SQLITE_READER_THREADS/);
  });
});
