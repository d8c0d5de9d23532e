import { Writable } from 'node:stream';

/** Pino's numeric levels, by name, for the readable lines. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** One log line as a person reads it: an access line as method, path, status, rows and time. */
export function readableLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json);
  } catch {
    return json;
  }
  if (line.msg === 'data access') {
    const count = typeof line.rows === 'number' ? line.rows : 0;
    const rows = count > 0 ? `  ${count} ${count === 1 ? 'row' : 'rows'}` : '';
    const took = typeof line.durationMs === 'number' ? `  ${line.durationMs} ms` : '';
    const route = String(line.route ?? '');
    const path =
      typeof line.campaignId === 'string' ? route.replace(':id', line.campaignId) : route;
    return `${line.method} ${path} → ${line.status}${rows}${took}`;
  }
  const level = LEVEL_NAMES[line.level as number] ?? 'info';
  const prefix = level === 'info' ? '' : `${level}: `;
  const cause =
    line.err && typeof line.err === 'object' && 'message' in line.err
      ? ` (${String((line.err as { message: unknown }).message)})`
      : '';
  return `${prefix}${String(line.msg ?? '')}${cause}`;
}

/**
 * A log destination for a person at a terminal (the demo): each JSON line pino writes becomes one
 * short line. LOG_FORMAT=json keeps the JSON, for programs.
 */
export function readableDestination(write: (text: string) => void): Writable {
  let pending = '';
  return new Writable({
    write(chunk, _encoding, done) {
      pending += chunk.toString();
      let end = pending.indexOf('\n');
      while (end >= 0) {
        const json = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (json.trim() !== '') write(`${readableLine(json)}\n`);
        end = pending.indexOf('\n');
      }
      done();
    },
  });
}
