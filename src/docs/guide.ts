/**
 * The hand-written part of the reference: how to get started and how to sync correctly. Shared
 * by /docs (JSON and HTML), llms.txt and the skill's SKILL.md, so they never disagree.
 */
export interface GuideSection {
  id: string;
  title: string;
  markdown: string;
}

export const GUIDE: GuideSection[] = [
  {
    id: 'getting-started',
    title: 'Getting started',
    markdown: `Ask the operator for an API key. A key looks like \`hadir_sk_\` followed by 64 lowercase hex characters; it is shown once. Keep it on your server (never in browser code, mobile apps or repositories). A key reads an explicit list of campaigns and, in each, an explicit allow-list of field keys.

\`\`\`sh
export HADIR_API_KEY=hadir_sk_...
curl -s -H "Authorization: Bearer $HADIR_API_KEY" https://HOST/developer/v1/campaigns
curl -s -H "Authorization: Bearer $HADIR_API_KEY" https://HOST/developer/v1/campaigns/CAMPAIGN_ID/summary
curl -s -H "Authorization: Bearer $HADIR_API_KEY" "https://HOST/developer/v1/campaigns/CAMPAIGN_ID/respondents?limit=200"
\`\`\`

Every data request is a GET; JSON in UTF-8; timestamps are ISO-8601 in UTC. Campaign data is Indonesian: show times in Asia/Jakarta (UTC+7) to people.`,
  },
  {
    id: 'fields',
    title: 'R1: the field set varies',
    markdown: `A respondent's \`fields\` holds only the allow-listed keys the respondent answered. A field outside the allow-list, or left blank, is absent, never \`null\`. Values are strings, or arrays of strings for multi-select questions; numbers and booleans arrive as the strings chosen. \`ipAddress\`, \`token\` and \`guestToken\` are never served. \`attendanceStatus\` (YES, NO, MAYBE) is always present.`,
  },
  {
    id: 'paging',
    title: 'R2: paging',
    markdown: `Page until \`page >= meta.totalPages\`, reading \`totalPages\` fresh from every response (it grows as RSVPs arrive). A short page is not the last page. Rows come in \`submittedAt\`, then \`id\` order; do not re-sort before you have them all.

Better: follow \`meta.nextCursor\`. Pass it back alone as \`cursor=\` (instead of \`page\`: a cursor is signed and carries its \`since\` and \`limit\`; sent beside it they must be the same, or it is a 400) until it is \`null\`. A respondent who edits while you page moves to the end; page numbers then skip one row, a cursor never does.`,
  },
  {
    id: 'filters',
    title: 'Ask the server: filters',
    markdown: `\`respondents\` and \`summary\` take filters, matched by the service: one request instead of a walk through every page.

- \`attendanceStatus=YES\` or \`YES,MAYBE\`.
- \`answers[FIELD_KEY]=VALUE\`: the answer equals the value, case ignored; repeated, any of the values. A multi-select answer matches when one of its choices does.
- \`answers[FIELD_KEY][contains]=TEXT\`: the answer holds the text, case ignored.

Every filter must hold (at most 20 values, each up to 100 characters, 1,500 bytes in all). On respondents \`meta.total\` counts the matches and paging is unchanged; \`meta.nextCursor\` carries the filters (follow it alone). On summary, totals and breakdowns count the matches only. A filter on a field your key may not read, never served, or not in the form is refused with \`400 invalid_parameter\`, in the same words whichever it is.`,
  },
  {
    id: 'agents',
    title: 'Agents: the hosted MCP endpoint',
    markdown: `Agents use the Model Context Protocol at \`POST https://HOST/developer/mcp\` (Streamable HTTP, no session), with your API key as bearer token: nothing to install. Its read-only tools (list_campaigns, get_summary, count_respondents, list_fields, list_respondents, list_removals) work under your key's scope, allow-list and rate limit: each data request a tool makes counts like yours. Give the host the URL and a header from the environment:

\`\`\`json
{ "mcpServers": { "hadir": { "type": "http", "url": "https://HOST/developer/mcp",
  "headers": { "Authorization": "Bearer \${HADIR_API_KEY}" } } } }
\`\`\`

That is Claude Code's \`.mcp.json\`; Cursor takes \`url\` and \`headers\` in \`.cursor/mcp.json\`, VS Code \`"servers"\` with \`"type": "http"\` in \`.vscode/mcp.json\` (both write \`\${env:HADIR_API_KEY}\`). A missing or refused key gets \`401\` with \`WWW-Authenticate: Bearer\`; a browser origin the operator has not allowed gets \`403\`.`,
  },
  {
    id: 'rate-limits',
    title: 'R3: 429 and Retry-After',
    markdown: `Each key may make 120 requests per minute (\`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` on every response). On \`429 rate_limited\`, wait the number of seconds in \`Retry-After\`, then send the same request again. Do not open parallel connections to get around it. Retry 5xx with exponential backoff and a bounded number of attempts; never retry 400, 401, 403 or 404.`,
  },
  {
    id: 'incremental-sync',
    title: 'R4: incremental sync with a watermark',
    markdown: `\`submittedAt\` is a last-modified time: an edited RSVP comes back with the same \`id\` and a later \`submittedAt\`. Store rows by \`id\` and upsert; never append blindly.

1. Keep a watermark per campaign: the largest \`submittedAt\` you stored.
2. Sync with \`since=<watermark minus a few minutes>\` (the upsert absorbs the overlap), walking every page.
3. Advance the watermark only after the whole sync succeeded.
4. A row missing from a \`since\` sync is not deleted: removals come from the removals feed (R5).`,
  },
  {
    id: 'removals',
    title: 'R5: apply removals since your last sync; on 410, re-read the campaign',
    markdown: `Respondents leave: deleted at the source, erased on request (Indonesia's personal data protection law gives each person that right), or expired after the event. \`GET /developer/v1/campaigns/CAMPAIGN_ID/removals?since=WATERMARK\` lists them, \`{ "id", "removedAt" }\` each, oldest first, with the same paging, cursors, ETags, scope and rate limit as respondents; it holds nothing else about the person. Delete each id from your copy, with all its answers.

1. Before a full pass (your first sync, or one after a 410), read one removals page and keep its \`meta.until\`.
2. After every sync, read the removals since your removals watermark (the \`until\` you kept), delete those ids, and keep the newest \`meta.until\` as the next watermark.
3. \`410 full_sync_required\`: the service no longer keeps removals that old (90 days by default). Re-read the whole campaign without \`since\`, drop the rows it no longer serves, and start again from step 1.
4. A campaign that answers 404 (deleted) or 403 (no longer in your scope) must go from your copy entirely.

\`GET /developer/v1/campaigns/CAMPAIGN_ID/fields\` names your allow-listed fields: \`{ "key", "label", "type", "position" }\` in form order, so you can show the questions instead of guessing from keys. The SDK (\`removals()\`, \`fields()\`) and \`hadir-sync\` do all of this for you.`,
  },
  {
    id: 'changes',
    title: 'Keeping a copy fresh: the changes feed',
    markdown: `\`GET /developer/v1/campaigns/CAMPAIGN_ID/changes?since=TOKEN\` lists what changed in one campaign, in the order Hadir applied it: \`{ "type": "upsert", "id", "changedAt", "respondent" }\` (the respondent as it is now, allow-listed fields only: upsert it by id) and \`{ "type": "removal", "id", "changedAt" }\` (delete it from your copy). A respondent edited several times is listed once, at its latest. It is the one request a mirror needs: new rows, edits, late records (whatever their \`submittedAt\`) and removals, and nothing it already holds.

1. First time: walk it without \`since\` (every current respondent), following \`meta.nextCursor\` until it is \`null\`; keep the last page's \`meta.until\`.
2. Next time: walk it with \`since=<that until>\`, apply each item in order, keep the new \`until\`. No look-back, no overlap: a row edited while you walk moves to the end of the walk.
3. Nothing new: keep your \`since\` and send the answer's \`ETag\` as \`If-None-Match\`; a campaign with nothing new answers 304, which does not count against your budget.
4. \`410 full_sync_required\`: walk it again without \`since\`, and drop the rows it no longer lists.

The SDK (\`changePages()\`, \`changesPage()\`) and \`hadir-sync\` (and \`hadir-sync watch\`, which spends at most 45 % of the key's budget) do this for you.`,
  },
  {
    id: 'conditional-requests',
    title: 'Polling cheaply: ETag and 304',
    markdown: `Every data response carries a strong \`ETag\`. Send it back as \`If-None-Match\` on the same URL: when nothing changed you get \`304 Not Modified\` with no body, and **a 304 does not count against your rate limit**. A conditional request is still refused with 429 while your budget for the minute is used up, and a full 200 answer to it is counted as usual. Responses are \`Cache-Control: private, no-cache\`: keep them only in your own store, and revalidate before reuse.`,
  },
  {
    id: 'errors',
    title: 'Errors',
    markdown: `Every error is \`{ "error": { "code", "message" } }\`. 400 \`invalid_parameter\` (bad or unknown parameter; fix the request), 401 \`unauthorized\` (key missing, malformed, unknown, revoked, expired, or account deactivated), 403 \`forbidden\` (campaign outside your scope), 404 \`not_found\`, 410 \`full_sync_required\` (removals and changes feeds only: re-read the campaign, R5), 429 \`rate_limited\` (wait \`Retry-After\`), 500 \`internal_error\` (retry once with backoff), 503 \`service_unavailable\` (retry after \`Retry-After\`). Quote the \`X-Request-Id\` header when you report a problem.`,
  },
];
