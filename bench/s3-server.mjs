// A local S3-compatible server (s3rver) in a process of its own, so that its work does not slow
// the bench's own requests; prints {"port":N} once it listens, and stops on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

const directory = mkdtempSync(join(tmpdir(), 'hadir-bench-s3-'));
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: process.argv.slice(2).map((name) => ({ name, configs: [] })),
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
const stop = async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
