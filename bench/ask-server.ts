import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { systemClock } from '../src/clock.ts';
import { openStore } from '../src/db/connect.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { importDocument } from '../src/import/import.service.ts';
import { issueKey } from '../src/keys/keys.service.ts';
import { inTurn, type LoadResult } from './load.ts';
import { startHadir } from './processes.ts';

const CAMPAIGN = 'ask-the-server';
const GUESTS = 10_000;
const MENUS = ['Sate', 'Soto', 'Rendang', 'Gado-gado', 'Nasi goreng'];
/** One guest in 20 chose the vegetarian menu: the filtered page matches about 5 %. */
const VEGETARIAN_EVERY = 20;
const AGENTS = 10;
const QUESTIONS_PER_AGENT = 20;

export interface AskServerRow {
  engine: 'sqlite' | 'postgres';
  guests: number;
  /** Page 1 of the whole campaign, response cache off. */
  unfiltered: LoadResult;
  /** Page 1 of the vegetarians (about 5 %), response cache off. */
  filtered: LoadResult;
  /** filtered over unfiltered requests per second: the goal is at least 0.5. */
  ratio: number;
  /** The vegetarian question through the hosted MCP endpoint, 10 agents asking at once. */
  hostedVegetarianQuestion?: {
    agents: number;
    asked: number;
    p50Ms: number;
    p95Ms: number;
    dataRequestsPerQuestion: number;
    characters: number;
    right: boolean;
  };
}

/** A campaign of 10,000 guests, one in 20 vegetarian, and a key that reads its name and menu. */
async function seed(
  databaseUrl: string,
): Promise<{ key: string; agentKey: { key: string; id: string }; vegetarians: number }> {
  const store = openStore(databaseUrl);
  try {
    await migrateToLatest(store);
    const respondents = Array.from({ length: GUESTS }, (_, n) => ({
      id: `g${String(n).padStart(5, '0')}`,
      campaignId: CAMPAIGN,
      submittedAt: new Date(Date.UTC(2026, 10, 1) + n * 1_000).toISOString(),
      attendanceStatus: n % 4 === 3 ? 'NO' : 'YES',
      answers: {
        nama: `Tamu ${n}`,
        menu: n % VEGETARIAN_EVERY === 7 ? 'Vegetarian' : (MENUS[n % MENUS.length] as string),
        catatan: `Catatan tamu ${n}`,
      },
    }));
    await importDocument(store, systemClock, {
      campaigns: [
        {
          id: CAMPAIGN,
          slug: CAMPAIGN,
          title: 'Ask the server',
          eventDate: null,
          location: null,
          fields: [
            { key: 'nama', label: 'Nama', type: 'TEXT' },
            { key: 'menu', label: 'Menu', type: 'RADIO' },
            { key: 'catatan', label: 'Catatan', type: 'TEXTAREA' },
          ],
        },
      ],
      respondents,
    });
    await createAccount(store, systemClock, {
      email: 'ask@hadir.test',
      password: 'kopi-tubruk-pagi-hari',
      mustChangePassword: false,
    });
    const scopes = [{ campaignId: CAMPAIGN, fields: ['nama', 'menu', 'catatan'] }];
    const { key } = await issueKey(store, systemClock, { accountEmail: 'ask@hadir.test', scopes });
    // The agents' own key, so that their data requests are told apart in the access log.
    const agentKey = await issueKey(store, systemClock, { accountEmail: 'ask@hadir.test', scopes });
    const vegetarians = respondents.filter(
      (row) => row.attendanceStatus === 'YES' && row.answers.menu === 'Vegetarian',
    ).length;
    return { key, agentKey: { key: agentKey.key, id: agentKey.id }, vegetarians };
  } finally {
    await store.close();
  }
}

/**
 * "Ask the server": a filtered respondents page (about 5 % of a 10,000-guest campaign match)
 * against the unfiltered page 1 of the same campaign, both uncached, loaded in turn on one
 * server; and the vegetarian question through the hosted MCP endpoint, ten agents at once.
 */
export async function measureAskServer(
  engine: 'sqlite' | 'postgres',
  databaseUrl: string,
  log: (line: string) => void,
): Promise<AskServerRow> {
  const { key, agentKey, vegetarians } = await seed(databaseUrl);
  const headers = { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' };
  const base = `/developer/v1/campaigns/${CAMPAIGN}/respondents`;
  const folder = mkdtempSync(join(tmpdir(), 'hadir-bench-ask-'));
  const logFile = join(folder, 'serve.log');
  const server = await startHadir(
    { DATABASE_URL: databaseUrl, RESPONSE_CACHE_MB: '0' },
    undefined,
    { logFile },
  );
  try {
    const pair = await inTurn(
      { server, request: { path: `${base}?limit=50`, headers, expectStatus: 200 } },
      {
        server,
        request: {
          path: `${base}?limit=50&answers%5Bmenu%5D=Vegetarian`,
          headers,
          expectStatus: 200,
        },
      },
      { rounds: 3, seconds: 5, warmupSeconds: 2 },
    );
    log(
      `  ${engine}: unfiltered ${Math.round(pair.a.requestsPerSecond)} req/s, filtered ${Math.round(pair.b.requestsPerSecond)} req/s (${pair.ratio.toFixed(2)})`,
    );
    const row: AskServerRow = {
      engine,
      guests: GUESTS,
      unfiltered: pair.a,
      filtered: pair.b,
      ratio: pair.ratio,
    };
    row.hostedVegetarianQuestion = await askAgents(server.url, agentKey, vegetarians, logFile);
    const hosted = row.hostedVegetarianQuestion;
    log(
      `  ${engine}: the vegetarian question from ${AGENTS} agents at once: p50 ${hosted.p50Ms} ms, p95 ${hosted.p95Ms} ms, ${hosted.dataRequestsPerQuestion} data request each, ${hosted.right ? 'right' : 'WRONG'}`,
    );
    return row;
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Ten agents, each connected to the hosted endpoint, asking the vegetarian question in turn. */
async function askAgents(
  url: string,
  agentKey: { key: string; id: string },
  vegetarians: number,
  logFile: string,
) {
  const key = agentKey.key;
  const dataRequests = () => dataRequestsIn(logFile, agentKey.id);
  const connect = async () => {
    const client = new Client({ name: 'bench-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/developer/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' } },
      }),
    );
    return client;
  };
  const agents = await Promise.all(Array.from({ length: AGENTS }, connect));
  const question = {
    campaignId: CAMPAIGN,
    attendanceStatus: 'YES',
    answers: { menu: { equals: ['Vegetarian'] } },
    fields: ['nama'],
  };
  const ask = async (agent: Client) => {
    const answer = (await agent.callTool({ name: 'list_respondents', arguments: question })) as {
      content: Array<{ text: string }>;
    };
    return answer.content.map((part) => part.text).join('');
  };
  try {
    // Each agent first learns the questions, as list_campaigns would have them learn.
    const first = await Promise.all(agents.map(ask));
    const usage = await settled(dataRequests);
    const times: number[] = [];
    let characters = 0;
    await Promise.all(
      agents.map(async (agent) => {
        for (let n = 0; n < QUESTIONS_PER_AGENT; n++) {
          const started = performance.now();
          characters = (await ask(agent)).length;
          times.push(performance.now() - started);
        }
      }),
    );
    const asked = AGENTS * QUESTIONS_PER_AGENT;
    const requests = (await settled(dataRequests)) - usage;
    times.sort((a, b) => a - b);
    const at = (share: number) =>
      Math.round(
        (times[Math.min(times.length - 1, Math.floor(times.length * share))] as number) * 10,
      ) / 10;
    const body = JSON.parse(first[0] as string) as { total: number; rows: unknown[] };
    return {
      agents: AGENTS,
      asked,
      p50Ms: at(0.5),
      p95Ms: at(0.95),
      dataRequestsPerQuestion: Math.round((requests / asked) * 100) / 100,
      characters,
      right: body.total === vegetarians && body.rows.length === vegetarians,
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
}

/** The data requests of one key the server has logged so far: its access log's lines. */
function dataRequestsIn(logFile: string, keyId: string): number {
  if (!existsSync(logFile)) return 0;
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"msg":"data access"') && line.includes(`"keyId":"${keyId}"`))
    .length;
}

/** A count once it stops growing: the log is written a little after each answer. */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  let now = count();
  while (now !== last) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = now;
    now = count();
  }
  return now;
}
