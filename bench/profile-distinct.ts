// Profiles Hadir's serving process under the distinct-pages load (page 1 of a campaign drawn at
// random for each request, uncached) on the bench's PostgreSQL data: `npm run bench -- --only
// distinct` seeds it first. Writes one .cpuprofile per thread into DIR, which
// bench/profile-summary.mjs splits by part of the request's path.
// Usage: tsx bench/profile-distinct.ts DIR
import { mkdirSync, readFileSync } from 'node:fs';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { clientHeaders, LIMIT, serverEnv } from './cases.ts';
import { load } from './load.ts';
import { startHadir } from './processes.ts';
import { CAMPAIGNS } from './seed.ts';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: tsx bench/profile-distinct.ts DIR\n');
  process.exit(2);
}
mkdirSync(dir, { recursive: true });
const data = new URL('.data/', import.meta.url).pathname;
const { key } = JSON.parse(readFileSync(`${data}postgres.json`, 'utf8')) as { key: string };
const cluster = await startPostgresCluster({ keepIn: `${data}postgres` });
try {
  const server = await startHadir({
    ...serverEnv(cluster.url('hadir_bench'), false),
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`,
  });
  const draw = () =>
    `/developer/v1/campaigns/bench-${String(Math.floor(Math.random() * CAMPAIGNS)).padStart(3, '0')}/respondents?limit=${LIMIT}`;
  const request = { path: draw(), draw, headers: clientHeaders(key), expectStatus: 200 };
  await load(server, request, 5);
  const measured = await load(server, request, 20);
  process.stdout.write(`${Math.round(measured.requestsPerSecond)} requests/s while profiled\n`);
  await server.stop();
} finally {
  await cluster.stop();
}
