import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { scrubNote } from '../../src/cli/scrub-note.ts';
import { compactPostgres } from '../../src/db/postgres-compaction.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { runHadirInProcess } from '../helpers/cli.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createTestDatabaseUrl, ENGINES, openTestStore } from '../helpers/stores.ts';

const DAY = 24 * 3_600_000;
const EMAIL = 'Sari.Rahma@Contoh.id';
const PHONE = '+62 812-3456-7890';

const guest = (id: string, campaignId: string, answers: Record<string, unknown>) => ({
  id,
  campaignId,
  submittedAt: '2026-11-01T00:00:00Z',
  attendanceStatus: 'YES',
  answers,
});

/** Two campaigns where Sari answered twice (once by e-mail, once by phone), and others. */
async function seeded(engine: (typeof ENGINES)[number], clock: ManualClock) {
  const databaseUrl = await createTestDatabaseUrl(engine);
  const store = await openTestStore(databaseUrl);
  await importDocument(store, clock, {
    campaigns: ['nikah', 'reuni'].map((id) => ({
      id,
      slug: id,
      title: id,
      eventDate: id === 'reuni' ? '2026-06-01T10:00:00Z' : null,
      location: null,
      fields: [
        { key: 'email', label: 'Email', type: 'EMAIL' },
        { key: 'hp', label: 'WhatsApp', type: 'PHONE' },
        { key: 'menu', label: 'Menu', type: 'RADIO' },
      ],
    })),
    respondents: [
      guest('n1', 'nikah', { email: EMAIL.toLowerCase(), menu: 'Sate' }),
      guest('n2', 'nikah', { email: 'budi@contoh.id', menu: 'Sate' }),
      guest('u1', 'reuni', { hp: '0812 3456 7890', menu: 'Soto' }),
      guest('u2', 'reuni', { hp: '0811 0000 000', menu: 'Soto' }),
    ],
  });
  return { databaseUrl, store };
}

describe.each(ENGINES)('erasure and retention by the operator, on %s', (engine) => {
  it('finds and erases a person everywhere by e-mail or phone, with tombstones and an audit line without the value', async () => {
    const clock = new ManualClock();
    const { databaseUrl, store } = await seeded(engine, clock);
    try {
      const run = (...args: string[]) => runHadirInProcess(args, { databaseUrl, clock });
      const byMail = await run('respondents', 'find', '--value', ` ${EMAIL} `, '--json');
      expect(JSON.parse(byMail.stdout).respondents).toEqual([
        { campaignId: 'nikah', id: 'n1', submittedAt: '2026-11-01T00:00:00.000Z' },
      ]);
      const byPhone = await run('respondents', 'find', '--value', PHONE);
      expect(byPhone.stdout).toBe('reuni  u1  submitted 2026-11-01T00:00:00.000Z\n');

      // Without --yes it only lists.
      const dry = await run('respondents', 'erase', '--value', PHONE);
      expect(dry.stdout).toContain('nothing erased yet: add --yes to erase 1 respondent');
      expect(await store.db.selectFrom('removals').selectAll().execute()).toEqual([]);

      clock.advance(60_000);
      const erased = await run('respondents', 'erase', '--value', PHONE, '--yes');
      expect(erased.status).toBe(0);
      expect(erased.stdout).toContain('erased 1 respondent');
      const mail = await run('respondents', 'erase', '--campaign', 'nikah', '--id', 'n1');
      expect(mail.stdout).toContain('erased 1 respondent');

      const tombstones = await store.db
        .selectFrom('removals')
        .select(['campaign_id', 'respondent_id', 'removed_at'])
        .orderBy('respondent_id')
        .execute();
      expect(tombstones.map((row) => `${row.campaign_id}/${row.respondent_id}`)).toEqual([
        'nikah/n1',
        'reuni/u1',
      ]);
      const left = await store.db.selectFrom('respondents').select('id').orderBy('id').execute();
      expect(left.map((row) => row.id)).toEqual(['n2', 'u2']);
      // Totals and breakdowns stay exact.
      const counts = await store.db
        .selectFrom('campaigns')
        .select(['id', 'response_count'])
        .orderBy('id')
        .execute();
      expect(counts.map((row) => `${row.id}:${row.response_count}`)).toEqual([
        'nikah:1',
        'reuni:1',
      ]);
      const soto = await store.db
        .selectFrom('answer_counts')
        .select('count')
        .where('campaign_id', '=', 'reuni')
        .where('value', '=', 'Soto')
        .executeTakeFirstOrThrow();
      expect(Number(soto.count)).toBe(1);

      const audit = await store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'respondents.erase')
        .orderBy('id')
        .execute();
      expect(audit).toHaveLength(2);
      expect(audit[0]?.actor).toMatch(/^operator/);
      expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({
        count: 1,
        respondents: [{ campaignId: 'reuni', id: 'u1' }],
        foundBy: 'value',
      });
      const everything = JSON.stringify(
        await store.db.selectFrom('audit_log').selectAll().execute(),
      );
      for (const value of [EMAIL, EMAIL.toLowerCase(), '3456', PHONE]) {
        expect(everything).not.toContain(value);
      }

      const unknown = await run(
        'respondents',
        'erase',
        '--campaign',
        'nikah',
        '--id',
        'n2',
        '--id',
        'zz',
      );
      expect(unknown.status).toBe(1);
      expect(unknown.stderr).toContain('campaign nikah has no respondent zz');
      expect(
        await store.db.selectFrom('respondents').select('id').where('id', '=', 'n2').execute(),
      ).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('keeps an erased respondent out of a later import, and lets it in once released', async () => {
    const clock = new ManualClock();
    const { databaseUrl, store } = await seeded(engine, clock);
    try {
      const run = (...args: string[]) => runHadirInProcess(args, { databaseUrl, clock });
      await run('respondents', 'erase', '--campaign', 'nikah', '--id', 'n2');
      // The platform's export still holds the person.
      const again = () =>
        importDocument(store, clock, {
          respondents: [guest('n2', 'nikah', { email: 'budi@contoh.id', menu: 'Soto' })],
        });
      expect((await again()).keptErased).toEqual({
        count: 1,
        records: [{ where: 'respondents[0] (id n2)', id: 'n2' }],
      });
      const held = await store.db
        .selectFrom('respondents')
        .select('id')
        .where('id', '=', 'n2')
        .execute();
      expect(held).toEqual([]);
      const released = await run('respondents', 'release', '--id', 'n2');
      expect(released.stdout).toBe(
        "released 1 respondent: the platform's next version of each is applied\n",
      );
      expect((await run('respondents', 'release', '--id', 'n2')).stdout).toBe(
        'none of them was held: nothing to release\n',
      );
      expect((await again()).respondents.upserted).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('deletes a campaign with a tombstone for each respondent', async () => {
    const clock = new ManualClock();
    const { databaseUrl, store } = await seeded(engine, clock);
    try {
      const deleted = await runHadirInProcess(['campaigns', 'delete', 'nikah'], {
        databaseUrl,
        clock,
      });
      expect(deleted.stdout).toBe(
        `deleted campaign nikah and 2 respondents${scrubNote(engine === 'postgres' ? 'until_compaction' : 'gone')}\n`,
      );
      const tombstones = await store.db
        .selectFrom('removals')
        .select('respondent_id')
        .where('campaign_id', '=', 'nikah')
        .orderBy('respondent_id')
        .execute();
      expect(tombstones.map((row) => row.respondent_id)).toEqual(['n1', 'n2']);
      const again = await runHadirInProcess(['campaigns', 'delete', 'nikah'], {
        databaseUrl,
        clock,
      });
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('campaign nikah does not exist');
    } finally {
      await store.close();
    }
  });

  it('expires respondents after their event and forgets old tombstones, listing first', async () => {
    const clock = new ManualClock('2026-11-22T08:00:00Z');
    const { databaseUrl, store } = await seeded(engine, clock);
    try {
      const env = { RETENTION_DAYS_AFTER_EVENT: '30', REMOVALS_RETENTION_DAYS: '90' };
      const plan = await runHadirInProcess(['retention', 'run'], { databaseUrl, clock, env });
      expect(plan.stdout).toContain('reuni  event 2026-06-01T10:00:00.000Z  2 respondents');
      expect(plan.stdout).toContain('nothing deleted yet');
      expect(await store.db.selectFrom('removals').selectAll().execute()).toEqual([]);
      const applied = await runHadirInProcess(['retention', 'run', '--yes'], {
        databaseUrl,
        clock,
        env,
      });
      expect(applied.stdout).toContain('deleted the respondents of 1 campaign');
      const tombstones = await store.db.selectFrom('removals').select('respondent_id').execute();
      expect(tombstones.map((row) => row.respondent_id).sort()).toEqual(['u1', 'u2']);
      expect(
        await store.db
          .selectFrom('respondents')
          .select('id')
          .where('campaign_id', '=', 'reuni')
          .execute(),
      ).toEqual([]);
      clock.advance(91 * DAY);
      const later = await runHadirInProcess(['retention', 'run', '--yes'], {
        databaseUrl,
        clock,
        env,
      });
      expect(later.stdout).toContain('forgot 2 tombstones older than 90 days');
      expect(await store.db.selectFrom('removals').selectAll().execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('compacts on the operator’s word, saying what it rewrote', async () => {
    const clock = new ManualClock();
    const { databaseUrl, store } = await seeded(engine, clock);
    try {
      const compacted = await runHadirInProcess(['compact', '--json'], { databaseUrl, clock });
      expect(compacted.status).toBe(0);
      expect(JSON.parse(compacted.stdout)).toEqual({
        rewritten:
          engine === 'postgres'
            ? ['respondents', 'answer_counts', 'answer_values', 'pg_statistic']
            : ['the whole database'],
        skipped: [],
        scrub: 'gone',
      });
    } finally {
      await store.close();
    }
  });
});

describe('compacting PostgreSQL', () => {
  it('refuses, naming it, while a transaction older than the compaction could see removed rows', async () => {
    const clock = new ManualClock();
    const { databaseUrl, store } = await seeded('postgres', clock);
    const holder = await openTestStore(databaseUrl);
    try {
      await holder.db.transaction().execute(async (trx) => {
        const pid = await sql<{
          pid: number;
        }>`SELECT pg_backend_pid() AS pid, txid_current()`.execute(trx);
        await expect(compactPostgres(store.db, 300)).rejects.toThrow(
          `transactions that began before the compaction still see the removed rows (pid ${pid.rows[0]?.pid} since `,
        );
      });
      // Once it ended, the compaction goes ahead.
      await expect(compactPostgres(store.db, 300)).resolves.toMatchObject({ scrub: 'gone' });
    } finally {
      await holder.close();
      await store.close();
    }
  });
});
