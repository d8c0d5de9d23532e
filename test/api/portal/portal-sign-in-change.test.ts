import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/db/connect.ts';
import { createSmtpMailer } from '../../../src/mail/mailer.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

/**
 * Makes the store refuse one kind of write, as a failing disk or a lost connection would in the
 * middle of a sign-in; `allow` lifts it.
 */
async function refuseWrites(store: Store, table: 'sessions' | 'accounts') {
  const event = table === 'sessions' ? 'INSERT' : 'UPDATE';
  if (store.engine === 'sqlite') {
    await sql
      .raw(
        `CREATE TRIGGER refuse_${table} BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, 'refused'); END`,
      )
      .execute(store.db);
  } else {
    await sql
      .raw(
        `CREATE FUNCTION refuse_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$;
         CREATE TRIGGER refuse_${table} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_${table}()`,
      )
      .execute(store.db);
  }
  return async () => {
    await sql
      .raw(`DROP TRIGGER refuse_${table}${store.engine === 'postgres' ? ` ON ${table}` : ''}`)
      .execute(store.db);
    if (store.engine === 'postgres')
      await sql.raw(`DROP FUNCTION refuse_${table}()`).execute(store.db);
  };
}

describe.each(ENGINES)('a sign-in applied as one change, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let portal: ReturnType<typeof portalClient>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(engine, {
      mailer: createSmtpMailer(smtp.url, 'Hadir <no-reply@hadir.test>'),
    });
    portal = portalClient(t, smtp);
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const auditLines = (accountId: string) =>
    t.store.db.selectFrom('audit_log').select('action').where('actor', '=', accountId).execute();

  it('writes nothing of a trusted-device sign-in whose session cannot be stored', async () => {
    const email = await portal.newAccount();
    const { trustedDevice } = await portal.signIn(email, PORTAL_PASSWORD, true);
    const account = await t.store.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    const device = () =>
      t.store.db
        .selectFrom('trusted_devices')
        .select('last_used_at')
        .where('account_id', '=', account.id)
        .executeTakeFirstOrThrow();
    const usedBefore = (await device()).last_used_at;
    const linesBefore = (await auditLines(account.id)).length;
    t.clock.advance(60_000);
    const allow = await refuseWrites(t.store, 'sessions');
    try {
      const login = await portal.request('POST', '/login', {
        body: { email, password: PORTAL_PASSWORD, deviceToken: trustedDevice?.token },
      });
      expect(login.status).toBe(500);
    } finally {
      await allow();
    }
    // Neither the device's use nor an audit line of a sign-in that did not happen.
    expect((await device()).last_used_at).toBe(usedBefore);
    expect(await auditLines(account.id)).toHaveLength(linesBefore);
    const login = await portal.request('POST', '/login', {
      body: { email, password: PORTAL_PASSWORD, deviceToken: trustedDevice?.token },
    });
    expect(login.body.status).toBe('authenticated');
    expect(Number((await device()).last_used_at)).toBe(t.clock.now());
  });

  it('stores and mails no code of a sign-in that cannot count it', async () => {
    const email = await portal.newAccount();
    const mails = portal.mailsTo(email).length;
    const allow = await refuseWrites(t.store, 'accounts');
    try {
      const login = await portal.request('POST', '/login', {
        body: { email, password: PORTAL_PASSWORD },
      });
      expect(login.status).toBe(500);
    } finally {
      await allow();
    }
    const codes = await t.store.db
      .selectFrom('one_time_codes as c')
      .innerJoin('accounts as a', 'a.id', 'c.account_id')
      .select('c.id')
      .where('a.email', '=', email)
      .execute();
    expect(codes).toEqual([]);
    expect(portal.mailsTo(email)).toHaveLength(mails);
  });
});
