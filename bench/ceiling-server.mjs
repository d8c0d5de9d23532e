// The ceiling: a plain node:http server answering every request with the bytes of a precomputed
// 200-row page. Nothing can serve that page faster on this machine with Node; the benchmark
// reports each case as a share of it. Usage: node ceiling-server.mjs BODY_FILE
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.argv[2]);
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(body.length),
};

const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
