import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Engine, openStore, type Store } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];
/**
 * The engine of the files that test pages (their HTML, headers, forms): the reads and writes
 * behind a page are the portal API's and the services', which run on both engines elsewhere.
 */
export const PAGE_ENGINES: readonly Engine[] = ['sqlite'];

/** A fresh, migrated database on the engine: a temporary SQLite file, or a copy of the template. */
export async function createTestDatabaseUrl(engine: Engine): Promise<string> {
  if (engine === 'sqlite') {
    return `sqlite:${join(mkdtempSync(join(tmpdir(), 'hadir-test-')), 'hadir.sqlite')}`;
  }
  return createPostgresDatabase('TEMPLATE hadir_template');
}

/** A PostgreSQL database with no schema at all, for tests of the migrations themselves. */
export function createEmptyPostgresUrl(): Promise<string> {
  return createPostgresDatabase('');
}

async function createPostgresDatabase(template: string): Promise<string> {
  const server = inject('postgresServer');
  const name = `hadir_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${server}postgres` });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} ${template}`);
  } finally {
    await admin.end();
  }
  return `${server}${name}`;
}

export async function createTestStore(engine: Engine): Promise<Store> {
  return openTestStore(await createTestDatabaseUrl(engine));
}

/** Another connection to a test database, as a second instance of the service would open. */
export async function openTestStore(url: string): Promise<Store> {
  const store = openStore(url);
  await migrateToLatest(store);
  return store;
}
