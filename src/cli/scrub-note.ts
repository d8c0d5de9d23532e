import type { Scrub } from '../db/store.ts';

/** The line a removal ends with when the removed rows' bytes are not gone from the files yet. */
export function scrubNote(scrub: Scrub | undefined): string {
  switch (scrub) {
    case undefined:
    case 'gone':
      return '';
    case 'in_log_until_checkpoint':
      return '\nnote: a reader kept the write-ahead log open; the removed rows leave it at the next checkpoint (or run hadir compact)';
    case 'until_compaction':
      return '\nnote: PostgreSQL keeps the removed rows in free space until hadir compact rewrites the tables (reads wait while it runs; see docs/operating/personal-data.md)';
  }
}
