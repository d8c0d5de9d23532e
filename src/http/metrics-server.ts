import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Prometheus metrics on a port of their own, so they are never reachable through the public
 * listener and need no key. `registry` is read per scrape (a cluster primary aggregates).
 */
export async function serveMetrics(
  host: string,
  port: number,
  registry: () => { metrics(): Promise<string>; contentType: string },
): Promise<MetricsServer> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: try GET /metrics\n');
      return;
    }
    const source = registry();
    source.metrics().then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(text),
      (error: Error) =>
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
