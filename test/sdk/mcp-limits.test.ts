import { describe, expect, it } from 'vitest';
import { demoDocument } from '../../src/demo/demo-data.ts';
import { importDocument } from '../../src/import/import.service.ts';
import { startTestApp } from '../helpers/app.ts';
import { exitOf } from '../helpers/cli.ts';
import { createTestKey, seedCampaign } from '../helpers/factories.ts';
import { call, connect, guestsOf, listen, MCP_BIN, WEDDING } from '../helpers/mcp-client.ts';
import { spawnOwned } from '../helpers/owned-processes.ts';

describe('hadir-mcp keeps each answer short enough for a context', () => {
  it('gives fewer rows per page when rows are long, cuts a very long answer, and still reaches every row', async () => {
    const t = await startTestApp('sqlite');
    try {
      const baseUrl = await listen(t);
      const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
      await seedCampaign(t.store, t.clock, {
        id: 'panjang',
        fields: [{ key: 'ucapan', type: 'TEXTAREA', label: 'Ucapan' }],
        respondents: Array.from({ length: 120 }, (_, n) => ({
          id: `p${String(n).padStart(3, '0')}`,
          submittedAt: at(n),
          answers: { ucapan: `${n} `.padEnd(n === 7 ? 5_000 : 1_500, 'doa ') },
        })),
      });
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: 'panjang', fields: ['ucapan'] },
      ]);
      const client = await connect(baseUrl, key);
      try {
        const ids: string[] = [];
        let cursor: string | undefined;
        let largest = 0;
        let first: Array<Record<string, unknown> & { id: string }> = [];
        do {
          const page = await call(client, 'list_respondents', {
            campaignId: 'panjang',
            limit: 200,
            ...(cursor ? { cursor } : {}),
          });
          largest = Math.max(largest, page.text.length);
          const body = page.json();
          if (ids.length === 0) first = guestsOf(body);
          ids.push(...guestsOf(body).map((guest) => guest.id));
          cursor = (body.nextCursor as string | null) ?? undefined;
        } while (cursor);
        expect(first.length).toBeLessThan(120);
        expect(largest).toBeLessThanOrEqual(40_000);
        expect(ids).toHaveLength(120);
        expect(new Set(ids).size).toBe(120);
        const long = (first.find((guest) => guest.id === 'p007')?.Ucapan as string) ?? '';
        expect(long).toMatch(/… \(cut: 5000 characters in all\)$/);
      } finally {
        await client.close();
      }
    } finally {
      await t.close();
    }
  });
});

describe('hadir-mcp holds every answer to 40,000 characters', () => {
  it('on later pages too, for a guest too long alone, and for a summary of many answers', async () => {
    const t = await startTestApp('sqlite');
    try {
      const baseUrl = await listen(t);
      const at = (n: number) => new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString();
      const fields = Array.from({ length: 30 }, (_, n) => ({
        key: `f${n}`,
        type: 'TEXTAREA' as const,
      }));
      await seedCampaign(t.store, t.clock, {
        id: 'campur',
        fields: [...fields, { key: 'pilihan', type: 'RADIO' }],
        respondents: Array.from({ length: 400 }, (_, n) => ({
          id: `g${String(n).padStart(3, '0')}`,
          submittedAt: at(n),
          answers: {
            // Short rows first: the first page is small, the pages after it are not.
            f0: n < 60 ? `${n}` : `${n} `.padEnd(1_900, 'doa '),
            // One guest answers every question at length.
            ...(n === 300
              ? Object.fromEntries(fields.map((field) => [field.key, 'panjang '.repeat(600)]))
              : {}),
            pilihan: `pilihan-${n}-${'x'.repeat(120)}`,
          },
        })),
      });
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: 'campur', fields: [...fields.map((field) => field.key), 'pilihan'] },
      ]);
      const client = await connect(baseUrl, key);
      try {
        const lengths: number[] = [];
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await call(client, 'list_respondents', {
            campaignId: 'campur',
            limit: 200,
            ...(cursor ? { cursor } : {}),
          });
          expect(page.answer.isError, page.text.slice(0, 200)).toBeFalsy();
          lengths.push(page.text.length);
          const body = page.json();
          ids.push(...guestsOf(body).map((guest) => guest.id));
          cursor = (body.nextCursor as string | null) ?? undefined;
        } while (cursor);
        expect(Math.max(...lengths)).toBeLessThanOrEqual(40_000);
        expect(ids).toEqual(
          Array.from({ length: 400 }, (_, n) => `g${String(n).padStart(3, '0')}`),
        );

        const summary = await call(client, 'get_summary', { campaignId: 'campur' });
        expect(summary.answer.isError, summary.text.slice(0, 300)).toBeFalsy();
        expect(summary.text.length).toBeLessThanOrEqual(40_000);
        expect(summary.json().note).toMatch(/most given answers of each question are shown/);
      } finally {
        await client.close();
      }
    } finally {
      await t.close();
    }
  });
});

describe('hadir-mcp and the rate limit', () => {
  it('waits out a 429 for its Retry-After and tells the caller as progress', async () => {
    const t = await startTestApp('sqlite', { rateLimitPerMinute: 2 });
    try {
      const baseUrl = await listen(t);
      await importDocument(t.store, t.clock, demoDocument());
      const { key } = await createTestKey(t.store, t.clock, [
        { campaignId: WEDDING, fields: ['menu'] },
      ]);
      // The key's budget spent 59 s into its window: the next request is told Retry-After: 1.
      for (let n = 0; n < 2; n++)
        expect((await t.get(`/developer/v1/campaigns`, key)).status).toBe(200);
      t.clock.advance(59_000);
      const client = await connect(baseUrl, key);
      try {
        const progress: string[] = [];
        const counted = await call(
          client,
          'count_respondents',
          { campaignId: WEDDING },
          (event) => {
            progress.push(event.message ?? '');
            // The window has passed by the time the client asks again.
            t.clock.advance(2_000);
          },
        );
        expect(counted.answer.isError).toBeFalsy();
        expect((counted.json().counts as { all: number }).all).toBeGreaterThan(0);
        expect(progress).toEqual([
          "Hadir's rate limit is reached: waiting 1 s (Retry-After) before asking again",
        ]);
      } finally {
        await client.close();
      }
    } finally {
      await t.close();
    }
  });
});

describe('hadir-mcp start-up', () => {
  /** hadir-mcp started as a client would, with only `env`: its exit status and standard error. */
  async function startAlone(args: string[], env: Record<string, string>) {
    const child = spawnOwned(MCP_BIN, args, {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return { status: await exitOf(child), stderr };
  }

  it('refuses to start without HADIR_BASE_URL and HADIR_API_KEY, saying what to set', async () => {
    const { status, stderr } = await startAlone([], {});
    expect(status).toBe(2);
    expect(stderr).toContain('HADIR_BASE_URL');
    expect(stderr).toContain('HADIR_API_KEY');
    expect(stderr).toContain('reads nothing from its arguments');
  });

  it('takes no key on its command line', async () => {
    const key = `hadir_sk_${'0'.repeat(64)}`;
    const { status, stderr } = await startAlone(['--api-key', key], {
      HADIR_BASE_URL: 'http://127.0.0.1:9',
      HADIR_API_KEY: key,
    });
    expect(status).toBe(2);
    expect(stderr).toContain('takes no arguments');
  });
});
