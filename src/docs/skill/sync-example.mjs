#!/usr/bin/env node
// A minimal, dependency-free Hadir client that follows R1-R4. Node.js 22 or newer.
//   HADIR_BASE_URL=https://host HADIR_API_KEY=hadir_sk_... node sync-example.mjs CAMPAIGN_ID [state.json]
// The state file keeps every row by id (R4) and the watermark, advanced only after a whole sync.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [campaignId, stateFile = `hadir-${campaignId}.json`] = process.argv.slice(2);
const baseUrl = process.env.HADIR_BASE_URL;
const apiKey = process.env.HADIR_API_KEY;
if (!campaignId || !baseUrl || !apiKey) {
  console.error(
    'usage: HADIR_BASE_URL=... HADIR_API_KEY=... node sync-example.mjs CAMPAIGN_ID [state.json]',
  );
  process.exit(2);
}
const LOOK_BACK_MS = 5 * 60_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function get(path, query) {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/developer/v1${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
    if (response.ok) return response.json();
    if (response.status === 429) {
      // R3: wait Retry-After seconds, then retry the same request.
      await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
      continue;
    }
    if (response.status >= 500 && attempt < 4) {
      await sleep(Math.random() * 500 * 2 ** attempt);
      continue;
    }
    const body = await response.json().catch(() => ({}));
    throw new Error(`${response.status} ${body.error?.code}: ${body.error?.message}`);
  }
}

const state = existsSync(stateFile)
  ? JSON.parse(readFileSync(stateFile, 'utf8'))
  : { watermark: null, rows: {} };
const since = state.watermark
  ? new Date(Date.parse(state.watermark) - LOOK_BACK_MS).toISOString()
  : undefined;
const base = { limit: '200', ...(since ? { since } : {}) };
let newest = state.watermark;
let cursor = null;
for (let page = 1; ; page++) {
  // R2: follow the cursor when offered, else page until page >= totalPages (read fresh).
  const body = await get(
    `/campaigns/${encodeURIComponent(campaignId)}/respondents`,
    cursor ? { ...base, cursor } : { ...base, page: String(page) },
  );
  for (const row of body.data) {
    state.rows[row.id] = row; // R4: upsert by id. R1: fields holds only what was served.
    if (!newest || row.submittedAt > newest) newest = row.submittedAt;
  }
  if (body.meta.nextCursor !== undefined) {
    if (body.meta.nextCursor === null) break;
    cursor = body.meta.nextCursor;
  } else if (page >= body.meta.totalPages) {
    break;
  }
}
state.watermark = newest; // Only now, after the whole sync succeeded.
writeFileSync(stateFile, JSON.stringify(state, null, 2));
console.log(
  `${campaignId}: ${Object.keys(state.rows).length} rows stored, watermark ${state.watermark}`,
);
