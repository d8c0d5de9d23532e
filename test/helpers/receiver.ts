import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, as a receiver must verify it. */
  body: string;
  path: string;
}

/** A notification receiver on 127.0.0.1 that keeps what it gets and answers as told. */
export class TestReceiver {
  readonly received: Received[] = [];
  /** Every request ever received, whoever cleared `received`. */
  readonly everything: Received[] = [];
  /** The status to answer (a function of the request); 204 unless changed. */
  answer: (request: Received) => number | { status: number; headers: Record<string, string> } =
    () => 204;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<TestReceiver> {
    let receiver: TestReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const got = {
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          path: request.url ?? '/',
        };
        receiver?.received.push(got);
        receiver?.everything.push(got);
        const answer = receiver?.answer(got) ?? 204;
        const { status, headers } =
          typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        response.writeHead(status, headers).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new TestReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return receiver;
  }

  /** The events received, parsed. */
  events(): Array<{ type: string; timestamp: string; data: Record<string, unknown> }> {
    return this.received.map((got) => JSON.parse(got.body));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
