import type { Clock } from '../clock.ts';
import type { ImportItem } from '../import/import-sources.ts';
import { counted } from './plural.ts';

/** A bar on a terminal is redrawn this often; elsewhere a line is written this often. */
const BAR_EVERY_MS = 200;
const LINE_EVERY_MS = 5_000;
const BAR_WIDTH = 24;

export interface ImportProgressOptions {
  clock: Clock;
  write: (text: string) => void;
  /** A bar redrawn in place on a terminal; plain lines every few seconds otherwise. */
  terminal: boolean;
  bytesRead: () => number;
  /** The file's size; unknown for standard input. */
  totalBytes: number | undefined;
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;

/**
 * Hands the items on unchanged and says how far the reading is: how much of the file is read and
 * how many records, so a long import is never silent. `done` ends the bar's line.
 */
export function withImportProgress(
  batches: AsyncIterable<ImportItem[]>,
  options: ImportProgressOptions,
): { batches: AsyncIterable<ImportItem[]>; done: () => void } {
  const { clock, write, terminal, bytesRead, totalBytes } = options;
  const started = clock.now();
  let lastShown = started;
  let count = 0;
  let drawn = false;
  let shownOnce = false;

  const describe = () => {
    const read = bytesRead();
    const seconds = Math.round((clock.now() - started) / 1000);
    const size = totalBytes ? ` of ${megabytes(totalBytes)}` : '';
    return `import: read ${megabytes(read)}${size}, ${counted(count, 'record')}, ${seconds} s`;
  };
  const show = () => {
    shownOnce = true;
    if (!terminal) return write(`${describe()}\n`);
    const share = totalBytes ? Math.min(1, bytesRead() / totalBytes) : undefined;
    const bar =
      share === undefined
        ? ''
        : `[${'█'.repeat(Math.round(share * BAR_WIDTH)).padEnd(BAR_WIDTH, '░')}] ${String(Math.round(share * 100)).padStart(3)}% `;
    write(`\r\x1b[2K${bar}${describe()}`);
    drawn = true;
  };

  async function* reported(): AsyncGenerator<ImportItem[]> {
    for await (const batch of batches) {
      for (const item of batch) if (item.kind !== 'problem') count += 1;
      const now = clock.now();
      if (now - lastShown >= (terminal ? BAR_EVERY_MS : LINE_EVERY_MS)) {
        lastShown = now;
        show();
      }
      yield batch;
    }
    // The last records, the campaign checks and the commit still follow: said when it was long.
    if (shownOnce) {
      show();
      write(
        terminal
          ? ' · checking and committing\n'
          : 'import: read everything; checking and committing\n',
      );
      drawn = false;
    }
  }

  return {
    batches: reported(),
    done: () => {
      if (drawn) write('\n');
    },
  };
}
