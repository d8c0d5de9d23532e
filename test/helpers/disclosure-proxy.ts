import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { csvRecords } from './csv.ts';

// What the disclosure report is held against: a proxy that notes what each key received.

export type Door =
  | 'api'
  | 'changes'
  | 'removals'
  | 'mcp'
  | 'download'
  | 'delivery'
  | 'notification';

/** One respondent in one answer a key received, as the proxy saw it. */
export interface Seen {
  keyId: string;
  door: Door;
  at: number;
  id: string;
  /** Their row (with these fields present), or only their id, as removed. */
  row?: string[];
}

const FIELDS = ['nama', 'menu', 'catatan'];
const SYSTEM_COLUMNS = new Set(['id', 'submittedAt', 'attendanceStatus']);

/** The respondents a file's rows carry, with their question columns that hold an answer. */
export function rowsOfCsv(text: string): Array<{ id: string; fields: string[] }> {
  return csvRecords(text).map((row) => ({
    id: row.ID as string,
    fields: FIELDS.filter((field) => (row[field] ?? '') !== ''),
  }));
}

/**
 * A proxy in front of the app that notes, for each answer, who asked (by bearer key, or by the
 * key a portal download names) and which respondents it carried, by door.
 */
export async function recordingProxy(
  target: string,
  keyOfBearer: (bearer: string) => string | undefined,
  now: () => number,
  seen: Seen[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const headers = { ...incoming.headers };
      // Plain bytes, so the proxy can read what went.
      delete headers['accept-encoding'];
      const forward = httpRequest(
        `${target}${incoming.url}`,
        { method: incoming.method, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const body = Buffer.concat(parts).toString('utf8');
            if (answer.statusCode === 200) {
              note(incoming.method ?? 'GET', incoming.url ?? '/', incoming.headers, body);
            }
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      forward.end(Buffer.concat(chunks));
    });
  });

  function note(method: string, url: string, headers: Record<string, unknown>, body: string) {
    const at = now();
    const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    const viaMcp = String(headers['user-agent'] ?? '').startsWith('hadir-mcp/');
    const path = url.split('?')[0] as string;
    const download = /^\/developer\/portal\/keys\/([^/]+)\/campaigns\/[^/]+\/guest-list\.csv$/.exec(
      path,
    );
    if (download) {
      for (const row of rowsOfCsv(body)) {
        seen.push({
          keyId: download[1] as string,
          door: 'download',
          at,
          id: row.id,
          row: row.fields,
        });
      }
      return;
    }
    const keyId = bearer ? keyOfBearer(bearer) : undefined;
    if (!keyId) return;
    if (method === 'POST' && path === '/developer/mcp') {
      const text = JSON.parse(body).result?.content?.[0]?.text;
      const answer = text ? JSON.parse(text) : undefined;
      if (answer?.columns && answer.rows) {
        const columns = answer.columns as string[];
        for (const row of answer.rows as unknown[][]) {
          const fields = columns.filter(
            (column, index) => !SYSTEM_COLUMNS.has(column) && row[index] !== null,
          );
          seen.push({ keyId, door: 'mcp', at, id: row[0] as string, row: fields });
        }
      }
      for (const removal of answer?.removals ?? []) {
        seen.push({ keyId, door: 'mcp', at, id: removal.id });
      }
      return;
    }
    const feed = /^\/developer\/v1\/campaigns\/[^/]+\/(respondents|changes|removals)$/.exec(path);
    if (!feed) return;
    const route = feed[1] as 'respondents' | 'changes' | 'removals';
    const door: Door = viaMcp ? 'mcp' : route === 'respondents' ? 'api' : route;
    for (const item of JSON.parse(body).data as Array<Record<string, any>>) {
      if (route === 'removals' || item.type === 'removal') {
        seen.push({ keyId, door, at, id: item.id });
      } else {
        const fields = Object.keys((item.respondent ?? item).fields);
        seen.push({ keyId, door, at, id: item.id, row: fields });
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
