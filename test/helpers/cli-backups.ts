import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHadir } from './cli.ts';

/** The campaigns of the backup tests' imports. */
export const CAMPAIGNS = ['satu', 'dua', 'tiga'];

/** An import document: the campaigns, and `rows` respondents spread over them. */
export function importDocument(prefix: string, rows: number): string {
  return JSON.stringify({
    campaigns: CAMPAIGNS.map((id) => ({
      id,
      slug: id,
      title: `Acara ${id}`,
      eventDate: null,
      location: null,
      fields: [{ key: 'menu', label: 'Menu', type: 'RADIO' }],
    })),
    respondents: Array.from({ length: rows }, (_, n) => ({
      id: `${prefix}-${n}`,
      campaignId: CAMPAIGNS[n % CAMPAIGNS.length],
      submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
      attendanceStatus: n % 4 === 0 ? 'NO' : 'YES',
      answers: { menu: n % 2 ? 'Sate' : 'Soto' },
    })),
  });
}

/** A new folder for a test's backups. */
export const backupFolder = () => mkdtempSync(join(tmpdir(), 'hadir-backup-'));

/** Runs ./bin/hadir on `databaseUrl` and returns its output; throws with its words on failure. */
export async function succeed(
  args: string[],
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<string> {
  const result = await runHadir(args, { databaseUrl, env });
  if (result.status !== 0) throw new Error(`hadir ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}
