import type { SyncProgress } from './sync.js';

export const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

/**
 * The progress line on standard error: a bar on a terminal, a line every ten pages otherwise, and
 * what the sync is waiting for whenever it waits (a rate limit, a retry).
 */
export function progressReporter(stream: NodeJS.WriteStream) {
  const tty = stream.isTTY === true;
  let lastLogged = 0;
  let latest: SyncProgress | undefined;

  const describe = (progress: SyncProgress) => {
    const resumed =
      progress.resumedAt !== undefined ? ` (resumed at ${plural(progress.resumedAt, 'row')})` : '';
    return `${progress.campaignId}: ${progress.rows.toLocaleString('en')}/${progress.total.toLocaleString('en')} rows · ${plural(progress.pages, 'page')}${resumed}`;
  };
  const show = (line: string, share: number | undefined) => {
    if (tty) {
      const bar =
        share === undefined
          ? ''
          : `[${'█'.repeat(Math.round(share * 20))}${'░'.repeat(20 - Math.round(share * 20))}] ${String(Math.round(share * 100)).padStart(3)}% `;
      stream.write(`\r\x1b[2K${bar}${line}`);
    } else {
      stream.write(`${line}\n`);
    }
  };

  return {
    update(progress: SyncProgress) {
      latest = progress;
      if (!tty && progress.pages - lastLogged < 10 && progress.pages !== 1) return;
      lastLogged = progress.pages;
      const share = progress.total === 0 ? 1 : Math.min(1, progress.rows / progress.total);
      show(describe(progress), share);
    },
    /** A wait, said on the progress line: "waiting 14 s (rate limit)". */
    waiting(seconds: number, why: string) {
      const prefix = latest ? `${describe(latest)} · ` : '';
      show(`${prefix}waiting ${Math.max(1, Math.round(seconds))} s (${why})`, undefined);
    },
    done() {
      if (tty) stream.write('\n');
      lastLogged = 0;
      latest = undefined;
    },
  };
}
