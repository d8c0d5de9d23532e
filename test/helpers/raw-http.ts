import { connect } from 'node:net';

/** One HTTP/1.1 answer as it came off the wire. */
export interface RawResponse {
  status: number;
  /** Header names lowercased. */
  headers: Record<string, string>;
  body: string;
}

/** Splits the bytes a server wrote into its answers (pipelined answers come back to back). */
export function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    const body = Buffer.from(rest.slice(bodyStart), 'latin1').subarray(0, length);
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: body.toString('utf8'),
    });
    rest = Buffer.from(rest.slice(bodyStart), 'latin1').subarray(length).toString('latin1');
  }
  return responses;
}

/**
 * Writes `bytes` on a fresh connection as they are (no client library to tidy them up) and
 * collects whatever comes back until the server closes or `quietMs` pass without a byte.
 */
export function sendRaw(
  port: number,
  bytes: string | Buffer,
  options: { quietMs?: number } = {},
): Promise<RawResponse[]> {
  const quietMs = options.quietMs ?? 300;
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponses(Buffer.concat(chunks).toString('latin1')));
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      arm();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    socket.write(bytes);
    arm();
  });
}
