import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createAccount } from '../accounts/accounts.service.ts';
import { systemClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { openStore } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { recordPathOf } from '../db/sqlite-record-file.ts';
import { ConfigError } from '../errors.ts';
import { importDocument } from '../import/import.service.ts';
import { issueKey } from '../keys/keys.service.ts';
import { serverSecretsOf } from '../secrets.ts';
import { DEMO_SCOPES, demoDocument } from './demo-data.ts';

/** The demo always uses its own SQLite file, recreated on each run, so it never touches real data. */
export const DEMO_DATABASE_PATH = './data/demo.sqlite';
export const DEMO_ACCOUNT_EMAIL = 'demo@hadir.test';

export interface DemoSession {
  url: string;
  database: string;
  campaigns: number;
  respondents: number;
  key: { id: string; key: string; expiresAt: string };
  account: { email: string; password: string };
  /** Where Prometheus metrics are served (METRICS_PORT, or a free port). */
  metricsUrl?: string;
}

/**
 * Fails with a plain message when the demo's port is taken, before anything is touched: a demo
 * already running there keeps its database.
 */
async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new ConfigError(
              `port ${port} on ${host} is in use (a demo already running?): stop it, or choose another port with --port`,
            )
          : error,
      );
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** Whom the demo account acts for, as the disclosure reports name it. */
export const DEMO_ORGANISATION = 'Katering Nusantara';

/** The demo, ready to serve: the configuration to serve it with, and what it holds. */
export interface PreparedDemo {
  config: Config;
  session: Omit<DemoSession, 'url' | 'metricsUrl'>;
}

/**
 * Recreates the demo database and issues a demo key; the caller serves it with the configuration
 * returned (see the CLI's `demo`).
 */
export async function prepareDemo(config: Config): Promise<PreparedDemo> {
  await ensurePortFree(config.host, config.port);
  // Its disclosure record too: the keys it names are gone with the database.
  for (const file of [DEMO_DATABASE_PATH, recordPathOf(DEMO_DATABASE_PATH)]) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
  const databaseUrl = `sqlite:${DEMO_DATABASE_PATH}`;
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    const counts = await importDocument(store, systemClock, demoDocument());
    const account = await createAccount(store, systemClock, {
      email: DEMO_ACCOUNT_EMAIL,
      organisation: DEMO_ORGANISATION,
      mustChangePassword: false,
    });
    const issued = await issueKey(store, systemClock, {
      accountEmail: DEMO_ACCOUNT_EMAIL,
      name: 'demo key',
      scopes: DEMO_SCOPES,
    });
    // A second key sealed for its one reveal in the portal, so the demo account has one to reveal.
    const secrets = serverSecretsOf(config);
    await issueKey(store, systemClock, {
      accountEmail: DEMO_ACCOUNT_EMAIL,
      name: 'portal key',
      scopes: DEMO_SCOPES,
      sealFor: secrets.keySealKey,
    });
    return {
      config: {
        ...config,
        databaseUrl,
        // The demo's notifications may go to receivers on this machine (http://127.0.0.1:…).
        webhooksAllowPrivateNetworks: true,
        // The demo shows its metrics too: on METRICS_PORT, or any free port it prints.
        metricsPort: config.metricsPort ?? 0,
      },
      session: {
        database: databaseUrl,
        campaigns: counts.campaigns.upserted,
        respondents: counts.respondents.upserted,
        key: issued,
        account: { email: account.email, password: account.generatedPassword ?? '' },
      },
    };
  } finally {
    await store.close();
  }
}

/** What a person needs to try the demo: the key, the account, and curl lines to paste. */
export function describeDemo(demo: DemoSession): string {
  const base = `${demo.url}/developer/v1`;
  // The key goes in a variable once, never on a command line of its own (shell history, ps).
  const auth = '-H "Authorization: Bearer $HADIR_API_KEY"';
  return [
    '',
    `Hadir demo: ${demo.campaigns} campaigns, ${demo.respondents} respondents in ${DEMO_DATABASE_PATH} (recreated on every start)`,
    `Listening on ${demo.url}`,
    '',
    `Demo API key (shown once; valid until ${demo.key.expiresAt}); in a second terminal:`,
    `  export HADIR_API_KEY=${demo.key.key}`,
    '',
    `Portal, in a browser: ${demo.url}/developer/portal`,
    `  account ${demo.account.email}  password ${demo.account.password}`,
    `  sign-in codes arrive in the development mailbox: ${demo.url}/developer/portal/dev/mail`,
    '',
    'Try:',
    `  curl -s ${auth} ${base}/campaigns`,
    `  curl -s ${auth} ${base}/campaigns/pernikahan-rina-bayu/summary`,
    `  curl -s ${auth} "${base}/campaigns/pernikahan-rina-bayu/respondents?limit=3"`,
    `  curl -s ${auth} "${base}/campaigns/jakarta-fun-run-2026/respondents?since=2026-11-10T00:00:00Z&limit=2"`,
    `  curl -s ${auth} ${base}/campaigns/reuni-sma3-2006/summary      # 403: not in this key's scope`,
    '',
    ...(demo.metricsUrl ? [`Metrics (Prometheus): curl -s ${demo.metricsUrl}`] : []),
    `Operator CLI on this data: DATABASE_URL=${demo.database} ./bin/hadir keys list`,
    `Who received a guest's data (once the key has read them): DATABASE_URL=${demo.database} ./bin/hadir disclosures --respondent pernikahan-00400`,
    'Change notifications may go to this machine in the demo (WEBHOOKS_ALLOW_PRIVATE_NETWORKS=1):',
    `  WEBHOOKS_ALLOW_PRIVATE_NETWORKS=1 DATABASE_URL=${demo.database} ./bin/hadir webhooks add --key ${demo.key.id} --url http://127.0.0.1:8787/`,
    'Below, one line per request (LOG_FORMAT=json for JSON lines).',
    'Stop with Ctrl+C.',
  ].join('\n');
}
