import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import {
  injectBatch,
  jsonLines as lines,
  ingestRecord as respondent,
} from '../../helpers/ingest-batch.ts';
import { lockWaiters } from '../../helpers/lock-waiters.ts';
import { createTestDatabaseUrl, openTestStore } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

// Batches on PostgreSQL beside other writers: what waits for what, and what is written again.

/**
 * An app on a new PostgreSQL database with campaign `nikah` (and `respondents`), a platform's
 * token, and an operator's own connection to hold rows with; all closed after `run`.
 */
async function besideAnOperator(
  respondents: Array<{ id: string; submittedAt: string; answers: Record<string, string> }>,
  run: (world: { t: TestApp; token: string; operator: pg.Client }) => Promise<void>,
): Promise<void> {
  const url = await createTestDatabaseUrl('postgres');
  const t = await startTestApp(await openTestStore(url), { ingest: { maxConcurrentBatches: 3 } });
  const operator = new pg.Client({ connectionString: url });
  await operator.connect();
  try {
    await seedCampaign(t.store, t.clock, {
      id: 'nikah',
      fields: [{ key: 'nama', type: 'TEXT' }],
      respondents,
    });
    const { token } = await createIngestToken(t.store, t.clock, 'platform', 'operator');
    await run({ t, token, operator });
  } finally {
    await operator.query('ROLLBACK').catch(() => {});
    await operator.end();
    await t.close();
  }
}

describe('batches beside a batch in its turn on PostgreSQL', () => {
  it('read, check and claim versions without waiting: a stale or a bad batch is answered at once', async () => {
    await besideAnOperator([], async ({ t, token, operator }) => {
      const send = (key: string, ...records: unknown[]) =>
        injectBatch(t.app, { token, key, body: lines(...records) });
      expect((await send('first', respondent('d1', 'Dewi', { version: 5 }))).statusCode).toBe(200);
      // Another writer holds the campaign's row: the next batch takes its turn, and in it waits
      // for that row (its counts) as long as the other writer keeps it.
      await operator.query('BEGIN');
      await operator.query("UPDATE campaigns SET title = 'Nikah' WHERE id = 'nikah'");
      const inTurn = send('in-turn', respondent('d2', 'Dimas', { version: 1 }));
      await until(
        async () => (await lockWaiters(operator)) === 1,
        'the batch to wait for the campaign in its turn',
      );

      const stale = await send('stale', respondent('d1', 'Lama', { version: 4 }));
      expect(stale.statusCode).toBe(200);
      expect(stale.json()).toMatchObject({ applied: { respondents: 0 }, stale: 1 });
      const bad = await send('bad', respondent('d3', 'Tanpa kampanye', { campaignId: 'hilang' }));
      expect(bad.statusCode).toBe(422);
      expect(await lockWaiters(operator)).toBe(1);

      await operator.query('COMMIT');
      const written = await inTurn;
      expect(written.statusCode).toBe(200);
      expect(written.json().applied.respondents).toBe(1);
      const names = await t.store.db
        .selectFrom('respondents')
        .select(['id', 'answers'])
        .orderBy('id')
        .execute();
      expect(names.map((row) => [row.id, JSON.parse(row.answers).nama])).toEqual([
        ['d1', 'Dewi'],
        ['d2', 'Dimas'],
      ]);
    });
  });
});

describe('a batch that meets another writer in a deadlock on PostgreSQL', () => {
  it('is rolled back by the server, written again, and answered 200', async () => {
    const d1 = { id: 'd1', submittedAt: '2026-11-19T10:00:00Z', answers: { nama: 'Lama' } };
    await besideAnOperator([d1], async ({ t, token, operator }) => {
      // Another writer holds the campaign's row: the batch updates its respondent, then waits
      // for that row (its counts).
      await operator.query('BEGIN');
      await operator.query("UPDATE campaigns SET title = 'Nikah' WHERE id = 'nikah'");
      const batch = injectBatch(t.app, {
        token,
        key: 'deadlock',
        body: lines(respondent('d1', 'Dewi')),
      });
      await until(
        async () => (await lockWaiters(operator)) === 1,
        'the batch to wait for the campaign',
      );
      // …and now the other writer wants the batch's respondent: a deadlock, which the batch,
      // waiting longer, is the one to break.
      await operator.query("UPDATE respondents SET attendance_status = 'NO' WHERE id = 'd1'");
      await operator.query('COMMIT');
      const answer = await batch;
      expect(answer.statusCode).toBe(200);
      expect(answer.json().applied.respondents).toBe(1);
      // The batch was written again after the other writer's commit, over it.
      const row = await t.store.db
        .selectFrom('respondents')
        .select(['answers', 'attendance_status'])
        .where('id', '=', 'd1')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.answers).nama).toBe('Dewi');
      expect(row.attendance_status).toBe('YES');
    });
  });
});
