import { rmSync } from 'node:fs';
import { createAccount } from '../accounts/accounts.service.ts';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { openStore } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { importDocument } from '../import/import.service.ts';
import { parseImportDocument } from '../import/import-document.ts';
import { issueKey } from '../keys/keys.service.ts';
import { startServer, stopOnSignals } from '../main.ts';
import { DEMO_SCOPES, demoDocument } from './demo-data.ts';

/** The demo always uses its own SQLite file, recreated on each run, so it never touches real data. */
export const DEMO_DATABASE_PATH = './data/demo.sqlite';
export const DEMO_ACCOUNT_EMAIL = 'demo@hadir.test';

/** Recreates the demo database, issues a demo key, prints how to use it, and serves. */
export async function runDemo(config: Config): Promise<void> {
  for (const suffix of ['', '-wal', '-shm'])
    rmSync(`${DEMO_DATABASE_PATH}${suffix}`, { force: true });
  const databaseUrl = `sqlite:${DEMO_DATABASE_PATH}`;
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  const counts = await importDocument(store, systemClock, parseImportDocument(demoDocument()));
  const account = await createAccount(store, systemClock, {
    email: DEMO_ACCOUNT_EMAIL,
    mustChangePassword: false,
  });
  const issued = await issueKey(store, systemClock, {
    accountEmail: DEMO_ACCOUNT_EMAIL,
    name: 'demo key',
    scopes: DEMO_SCOPES,
  });
  await store.close();

  const server = await startServer({ ...config, databaseUrl });
  const base = `${server.url}/developer/v1`;
  const auth = `-H "Authorization: Bearer ${issued.key}"`;
  process.stdout.write(
    [
      '',
      `Hadir demo: ${counts.campaigns.upserted} campaigns, ${counts.respondents.upserted} respondents in ${DEMO_DATABASE_PATH}`,
      `Listening on ${server.url}`,
      '',
      `Demo API key (shown once; valid until ${issued.expiresAt}):`,
      `  ${issued.key}`,
      `Demo portal account: ${DEMO_ACCOUNT_EMAIL}  password: ${account.generatedPassword}`,
      '',
      'Try:',
      `  curl -s ${auth} ${base}/campaigns`,
      `  curl -s ${auth} ${base}/campaigns/pernikahan-rina-bayu/summary`,
      `  curl -s ${auth} "${base}/campaigns/pernikahan-rina-bayu/respondents?limit=3"`,
      `  curl -s ${auth} "${base}/campaigns/jakarta-fun-run-2026/respondents?since=2026-11-10T00:00:00Z&limit=2"`,
      `  curl -s ${auth} ${base}/campaigns/reuni-sma3-2006/summary      # 403: not in this key's scope`,
      '',
      `Operator CLI on this data: DATABASE_URL=${databaseUrl} ./bin/hadir keys list`,
      'Stop with Ctrl+C.',
      '',
    ].join('\n'),
  );
  stopOnSignals(server);
}
