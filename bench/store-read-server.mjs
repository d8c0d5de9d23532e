// A reference for uncached page 1 on PostgreSQL: a plain node:http server that, per request, runs
// Hadir's own page query (as compiled in dist/: the page's rows joined into one text) and answers
// with that text cut to the served page's size, with no projection, no JSON building and no
// framework. A server that reads its rows from this store on every request does at least this
// much, and the database's CPU per request here is the page query's alone.
// Usage: node store-read-server.mjs DATABASE_URL CAMPAIGN_ID LIMIT PAGE_BYTES
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readPageText } from '../dist/src/campaigns/pages/page-rows.repository.js';
import { openStore } from '../dist/src/db/connect.js';

const [url, campaignId, limit, pageBytes] = process.argv.slice(2);
const store = openStore(url);

const server = createServer(async (_request, response) => {
  try {
    const page = await readPageText(store, { campaignId }, Number(limit) + 1);
    const body = Buffer.from(page.take() ?? '').subarray(0, Number(pageBytes));
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length),
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
    });
    response.end(body);
  } catch (error) {
    response.writeHead(500);
    response.end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () =>
  server.close(async () => {
    await store.close();
    process.exit(0);
  }),
);
