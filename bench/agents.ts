import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { DEMO_SCOPES, demoDocument } from '../src/demo/demo-data.ts';
import { importDocument } from '../src/import/import.service.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import { startHadir } from './processes.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const WEDDING = 'pernikahan-rina-bayu';
const STARTS = 7;

export interface AgentsRow {
  /** From starting hadir-mcp, installed from its tarball, to its answer to tools/list. */
  mcpFirstToolsListMs: { median: number; max: number; runs: number };
  vegetarianQuestion: { calls: number; characters: number; correct: boolean; guests: number };
}

type Text = { type: string; text: string };

/**
 * The agent rows: hadir-mcp installed from its tarball as a partner installs it, started a few
 * times to its first tools/list; and "who among the guests coming to the Rina & Bayu wedding is
 * vegetarian?" asked of the demo with the demo key, as an agent would: the calls and the
 * characters of tool output it takes, and whether the answer is right.
 */
export async function measureAgents(log: (line: string) => void): Promise<AgentsRow> {
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-agent-'));
  const database = join(folder, 'demo.sqlite');
  const store = openStore(`sqlite:${database}`);
  let key: string;
  try {
    await migrateToLatest(store);
    await importDocument(store, systemClock, demoDocument());
    await createAccount(store, systemClock, {
      email: 'agent@hadir.test',
      password: 'kopi-tubruk-pagi-hari',
      mustChangePassword: false,
    });
    ({ key } = await issueKey(store, systemClock, {
      accountEmail: 'agent@hadir.test',
      scopes: DEMO_SCOPES,
    }));
  } finally {
    await store.close();
  }
  const packages = join(ROOT, 'dist/packages');
  const tarballs = readdirSync(packages).filter((file) => /^hadir-(client|mcp)-/.test(file));
  writeFileSync(join(folder, 'package.json'), '{ "private": true }\n');
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', ...tarballs.map((file) => join(packages, file))],
    { cwd: folder, stdio: 'ignore' },
  );
  // Reached directly on this machine, as a partner's agent reaches the demo: no proxy in front.
  const server = await startHadir({
    DATABASE_URL: `sqlite:${database}`,
    NODE_ENV: 'development',
    PUBLIC_URL: 'http://127.0.0.1',
  });
  try {
    const connect = async () => {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(folder, 'node_modules/@hadir/mcp/dist/main.js')],
          env: { HADIR_BASE_URL: server.url, HADIR_API_KEY: key },
          stderr: 'ignore',
        }),
      );
      return client;
    };
    const starts: number[] = [];
    for (let run = 0; run < STARTS; run += 1) {
      const started = performance.now();
      const client = await connect();
      await client.listTools();
      starts.push(performance.now() - started);
      await client.close();
    }
    starts.sort((a, b) => a - b);
    const mcpFirstToolsListMs = {
      median: Math.round(starts[Math.floor(STARTS / 2)] as number),
      max: Math.round(starts.at(-1) as number),
      runs: STARTS,
    };
    log(`  hadir-mcp to its first tools/list: median ${mcpFirstToolsListMs.median} ms`);

    const agent = await connect();
    try {
      const text = async (name: string, args: Record<string, unknown>) => {
        const answer = (await agent.callTool({ name, arguments: args })) as { content: Text[] };
        return answer.content.map((part) => part.text).join('');
      };
      const campaigns = await text('list_campaigns', {});
      const wedding = (
        JSON.parse(campaigns).campaigns as Array<{
          id: string;
          questions: Array<{ key: string; label: string }>;
        }>
      ).find((campaign) => campaign.id === WEDDING);
      const menu = wedding?.questions.find((question) => /menu/i.test(question.label));
      const name = wedding?.questions.find((question) => /nama/i.test(question.label));
      const listed = await text('list_respondents', {
        campaignId: WEDDING,
        attendanceStatus: 'YES',
        answers: { [menu?.key ?? 'menu']: { equals: ['Vegetarian'] } },
        fields: [name?.key ?? 'nama'],
      });
      const answered = JSON.parse(listed) as { rows: string[][] };
      const expected = (
        demoDocument().respondents as Array<{
          id: string;
          campaignId: string;
          attendanceStatus: string;
          answers: Record<string, unknown>;
        }>
      )
        .filter(
          (row) =>
            row.campaignId === WEDDING &&
            row.attendanceStatus === 'YES' &&
            row.answers.menu === 'Vegetarian',
        )
        .map((row) => `${row.id} ${row.answers.nama}`)
        .sort();
      const got = answered.rows.map(([id, guest]) => `${id} ${guest}`).sort();
      const vegetarianQuestion = {
        calls: 2,
        characters: campaigns.length + listed.length,
        correct: JSON.stringify(got) === JSON.stringify(expected),
        guests: got.length,
      };
      log(
        `  the vegetarian question: ${vegetarianQuestion.calls} calls, ${vegetarianQuestion.characters} characters, ${vegetarianQuestion.correct ? 'right' : 'WRONG'}`,
      );
      return { mcpFirstToolsListMs, vegetarianQuestion };
    } finally {
      await agent.close();
    }
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
