import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEEP_MS, purgeIngestBatches } from '../../../src/ingest/ingest.service.ts';
import { createIngestToken } from '../../../src/ingest/ingest-tokens.service.ts';
import { eraseRespondents, releaseErased } from '../../../src/removals/erasure.service.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey, seedCampaign } from '../../helpers/factories.ts';
import {
  jsonLines as lines,
  injectBatch as postBatch,
  ingestRecord as respondent,
} from '../../helpers/ingest-batch.ts';
import { ENGINES } from '../../helpers/stores.ts';
import { until } from '../../helpers/until.ts';

/**
 * What the ingest API refuses before anything is written (hostile or broken bodies), and what a
 * batch's answer tells the platform of its mistakes: records for erased people, answers to
 * questions a campaign lacks, a day's answers forgotten.
 */
describe.each(ENGINES)(
  'the ingest API against broken batches and platform mistakes, on %s',
  (engine) => {
    let t: TestApp;
    let token: string;
    let apiKey: string;
    let sequence = 0;

    beforeAll(async () => {
      t = await startTestApp(engine, { ingest: { maxConcurrentBatches: 2 } });
      await seedCampaign(t.store, t.clock, {
        id: 'nikah',
        fields: [{ key: 'nama', type: 'TEXT' }],
      });
      token = (await createIngestToken(t.store, t.clock, 'platform', 'operator')).token;
      apiKey = (await createTestKey(t.store, t.clock, [{ campaignId: 'nikah', fields: ['nama'] }]))
        .key;
    });
    afterAll(() => t.close());

    const send = (
      body: string,
      headers: Record<string, string> = {},
      key = `batch-${++sequence}`,
    ) => postBatch(t.app, { token, key, body, extra: headers });
    const served = async (id: string) => {
      const page = await t.get('/developer/v1/campaigns/nikah/respondents?limit=200', apiKey);
      return (page.body.data as Array<{ id: string; fields: { nama?: string } }>).find(
        (row) => row.id === id,
      );
    };

    it('forgets a batch’s answer once its day is past, by the serving process’s housekeeping', async () => {
      await send(lines(respondent('k1', 'Kept')), {}, 'kept-a-day');
      const kept = async () =>
        (
          await t.store.db
            .selectFrom('ingest_batches')
            .select('idempotency_key')
            .where('idempotency_key', '=', 'kept-a-day')
            .execute()
        ).length;
      t.clock.advance(IDEMPOTENCY_KEEP_MS - 1);
      await purgeIngestBatches(t.store.db, t.clock.now());
      expect(await kept()).toBe(1);
      t.clock.advance(1);
      await purgeIngestBatches(t.store.db, t.clock.now());
      expect(await kept()).toBe(0);
    });

    it('refuses values nested thousands deep and NUL characters in ids with 422, naming the line', async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      for (const body of [
        `{"type":"respondent","id":${deep},"campaignId":"nikah"}`,
        `{"type":${deep}}`,
        `{"type":"respondent","id":"n1","campaignId":"nikah","submittedAt":${deep},"attendanceStatus":"YES"}`,
        JSON.stringify(respondent('n\u0000ul', 'X')),
        JSON.stringify(respondent('n2', 'X', { campaignId: 'nik\u0000ah' })),
        JSON.stringify({ type: 'deletion', respondentId: 'n\u0000ul' }),
      ]) {
        const answer = await send(body);
        expect(answer.statusCode, body.slice(0, 80)).toBe(422);
        expect(answer.json().error.message).toMatch(
          /^batch refused, nothing was written[\s\S]*line 1/,
        );
      }
    });

    it('refuses a line its published schema refuses, naming where, and writes nothing of the batch', async () => {
      const answer = await send(
        lines(respondent('sc1', 'Kept back'), {
          type: 'respondent',
          id: 'sc0',
          deleted: true,
          reason: 'moved',
        }),
      );
      expect(answer.statusCode).toBe(422);
      expect(answer.json().error.message).toMatch(
        /line 2 \(id sc0\): does not match the published record schema at \/reason: is not a property of this record/,
      );
      expect(await served('sc1')).toBeUndefined();
    });

    it('counts records as the reader splits them: lines ended by CR alone are records too', async () => {
      const records = Array.from({ length: 1_001 }, (_, n) =>
        JSON.stringify(respondent(`cr${n}`, 'X')),
      );
      const answer = await send(records.join('\r'));
      expect(answer.statusCode).toBe(413);
      expect(answer.json().error.message).toContain('this one holds 1,001');
      expect(await served('cr0')).toBeUndefined();
      const crlf = await send(records.slice(0, 3).join('\r\n'));
      expect(crlf.json().applied.respondents).toBe(3);
    });

    it('refuses a body in a Content-Encoding it does not decode, with 415', async () => {
      const answer = await send(lines(respondent('br1', 'X')), { 'content-encoding': 'br' });
      expect(answer.statusCode).toBe(415);
      expect(answer.json().error.message).toMatch(/Content-Encoding br/);
      expect(await served('br1')).toBeUndefined();
      const plain = await send(lines(respondent('br2', 'X')), { 'content-encoding': 'identity' });
      expect(plain.statusCode).toBe(200);
    });

    it('throttles unknown tokens from one address as unknown keys are, and not the platform’s', async () => {
      const stranger = (n: number) =>
        postBatch(
          t.app,
          { token: `hadir_it_${String(n).padStart(64, '0')}`, key: `guess-${n}`, body: '' },
          '203.0.113.9',
        );
      for (let n = 0; n < 60; n++) expect((await stranger(n)).statusCode).toBe(401);
      const throttled = await stranger(60);
      expect(throttled.statusCode).toBe(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      expect(throttled.json().error.message).toMatch(/too many refused ingest tokens/);
      // Another address with the good token is not held by it.
      expect((await send(lines(respondent('t1', 'Tamu')))).statusCode).toBe(200);
      t.clock.advance(60_000);
      expect((await stranger(61)).statusCode).toBe(401);
    });

    it('never holds off the good token, whatever its address sent (a shared NAT, a proxy)', async () => {
      const shared = '198.51.100.7';
      for (let n = 0; n < 300; n++) {
        await postBatch(
          t.app,
          { token: `hadir_it_${String(n).padStart(64, '1')}`, key: `guess-${n}`, body: '' },
          shared,
        );
      }
      const guess = await postBatch(
        t.app,
        { token: `hadir_it_${'2'.repeat(64)}`, key: 'guess-again', body: '' },
        shared,
      );
      expect(guess.statusCode).toBe(429);
      const good = await postBatch(
        t.app,
        { token, key: 'from-behind-the-nat', body: lines(respondent('nat1', 'Tamu')) },
        shared,
      );
      expect(good.statusCode, good.body).toBe(200);
      expect(await served('nat1')).toBeDefined();
    });

    it('names answers to questions the campaign does not have, by line, id and key, never the value', async () => {
      const answer = await send(
        lines(
          respondent('u1', 'Known'),
          respondent('u2', 'Known', {
            answers: { nama: 'X', alamat: 'Jalan Rahasia 7', umur: '30' },
          }),
        ),
      );
      expect(answer.json().unknownAnswers).toEqual({
        count: 1,
        records: [{ line: 'line 2', id: 'u2', fields: ['alamat', 'umur'] }],
      });
      expect(JSON.stringify(answer.json())).not.toContain('Rahasia');
      // Applied all the same: the question may come with the campaign's next record.
      expect((await served('u2'))?.fields).toEqual({ nama: 'X' });
    });

    it('keeps an erased person erased against later versions, until a deletion or a release', async () => {
      expect((await send(lines(respondent('e1', 'Sari Pribadi')))).statusCode).toBe(200);
      await eraseRespondents(t.store, t.clock, [{ campaignId: 'nikah', id: 'e1' }], 'ids');
      // The outbox sends the person again, as if nothing happened.
      const again = await send(
        lines(respondent('e2', 'Other'), respondent('e1', 'Sari Pribadi 2')),
      );
      expect(again.json()).toMatchObject({
        applied: { respondents: 1 },
        keptErased: { count: 1, records: [{ line: 'line 2', id: 'e1' }] },
      });
      expect(JSON.stringify(again.json())).not.toContain('Pribadi');
      expect(await served('e1')).toBeUndefined();
      // An operator lifts the hold: the next version is applied.
      expect(await releaseErased(t.store, t.clock, ['e1'])).toBe(1);
      await send(lines(respondent('e1', 'Back')));
      expect((await served('e1'))?.fields).toEqual({ nama: 'Back' });
      // Erased again, then deleted at the source: the hold has done its work.
      await eraseRespondents(t.store, t.clock, [{ campaignId: 'nikah', id: 'e1' }], 'ids');
      await send(lines({ type: 'deletion', respondentId: 'e1' }));
      const later = await send(lines(respondent('e1', 'New RSVP')));
      expect(later.json().keptErased.count).toBe(0);
      expect((await served('e1'))?.fields).toEqual({ nama: 'New RSVP' });
    });
  },
);

describe('respondents removed by batches on SQLite', () => {
  it('leave the file rebuilt from the live rows alone a while after, with a log line', async () => {
    const t = await startTestApp('sqlite', {
      ingest: { maxConcurrentBatches: 2, scrubAfterMs: 50 },
    });
    try {
      await seedCampaign(t.store, t.clock, {
        id: 'nikah',
        fields: [{ key: 'nama', type: 'TEXT' }],
      });
      const { token } = await createIngestToken(t.store, t.clock, 'platform', 'operator');
      const post = (key: string, records: unknown[]) =>
        postBatch(t.app, { token, key, body: lines(...records) });
      const ids = Array.from({ length: 300 }, (_, n) => `g${n}`);
      // Long answers fill many pages, which the deletions then leave empty.
      const added = await post(
        'add',
        ids.map((id) => respondent(id, `${id} ${'x'.repeat(2_000)}`)),
      );
      expect(added.statusCode).toBe(200);
      const freePages = async () =>
        Number(
          (
            await sql<{ n: number }>`SELECT freelist_count AS n FROM pragma_freelist_count`.execute(
              t.store.db,
            )
          ).rows[0]?.n,
        );
      const removed = await post(
        'remove',
        ids.map((id) => ({ type: 'deletion', respondentId: id })),
      );
      expect(removed.json().applied.deletions).toBe(300);
      expect(await freePages()).toBeGreaterThan(0);
      await until(
        () => t.logs.some((line) => line.msg === 'removed respondents scrubbed'),
        'the scrub after the removal',
      );
      expect(t.logs.find((line) => line.msg === 'removed respondents scrubbed')?.scrub).toBe(
        'gone',
      );
      expect(await freePages()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
