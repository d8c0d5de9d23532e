import { describe, expect, it } from 'vitest';
import { exitOf, runHadirInProcess, startHadir } from '../helpers/cli.ts';
import { createTestDatabaseUrl, openTestStore } from '../helpers/stores.ts';

describe('hadir ingest-tokens and the ingest listener', () => {
  it('creates a token shown once, lists it without it, and revokes it', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    await (await openTestStore(databaseUrl)).close();
    const created = await runHadirInProcess(
      ['ingest-tokens', 'create', '--name', 'platform-relay', '--json'],
      { databaseUrl },
    );
    expect(created.status).toBe(0);
    const { id, token } = JSON.parse(created.stdout);
    expect(token).toMatch(/^hadir_it_[0-9a-f]{64}$/);
    const listed = await runHadirInProcess(['ingest-tokens', 'list'], { databaseUrl });
    expect(listed.stdout).toContain(`${id}  platform-relay  in force`);
    expect(listed.stdout).not.toContain(token.slice(9));
    const revoked = await runHadirInProcess(['ingest-tokens', 'revoke', id], { databaseUrl });
    expect(revoked.stdout).toBe(`revoked ingest token ${id}\n`);
    const again = await runHadirInProcess(['ingest-tokens', 'revoke', id], { databaseUrl });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('is already revoked');
  });

  it('serves /ingest on INGEST_PORT alone when it is set, and on the main listener otherwise', async () => {
    const databaseUrl = await createTestDatabaseUrl('sqlite');
    await (await openTestStore(databaseUrl)).close();
    const { token } = JSON.parse(
      (
        await runHadirInProcess(['ingest-tokens', 'create', '--name', 'p', '--json'], {
          databaseUrl,
        })
      ).stdout,
    );
    // Port 0: the system gives a free one, which no other file can take between a look and a listen.
    const server = await startHadir(['serve', '--port', '0', '--json'], {
      databaseUrl,
      env: { INGEST_PORT: '0' },
      ready: /"url":"(http:\/\/[^"]+)".*"ingestUrl":"(http:\/\/[^"]+)"/,
    });
    try {
      const [, main, ingest] = server.match;
      expect(ingest).toMatch(/^http:\/\/127\.0\.0\.1:[1-9][0-9]*$/);
      expect(ingest).not.toBe(main);
      const post = (base: string) =>
        fetch(`${base}/ingest/v1/batches`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/x-ndjson',
            'idempotency-key': 'first',
          },
          body: `${JSON.stringify({ type: 'campaign', id: 'c', slug: 'c', title: 'C' })}\n`,
        });
      expect((await post(main as string)).status).toBe(404);
      const applied = await post(ingest as string);
      expect(applied.status).toBe(200);
      expect((await applied.json()).applied.campaigns).toBe(1);
      expect((await fetch(`${ingest}/developer/v1/campaigns`)).status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
    }
  });
});
