import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { type Artifact, artifact } from '../http/artifacts.ts';
import { docsPageHtml } from './docs-page.ts';
import { GUIDE } from './guide.ts';
import { API_VERSION, sortKeys } from './openapi.ts';

interface Operation {
  security?: Array<Record<string, unknown>>;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{
    name: string;
    in: string;
    required?: boolean;
    schema?: Record<string, unknown>;
  }>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

const LINKS = {
  openapi: '/developer/v1/openapi.json',
  docs: '/developer/v1/docs',
  llms: '/developer/v1/llms.txt',
  skill: '/developer/v1/skill.zip',
};
const SUMMARY =
  'Hadir is a read-only HTTP JSON API that gives approved third parties access to RSVP campaign data: campaigns, attendance totals, per-question breakdowns and respondent rows. Every data request is a GET under /developer/v1 with an API key as bearer token; each key reads an operator-chosen list of campaigns and, in each, an allow-list of field keys. Portal endpoints under /developer/auth let account holders sign in (password plus e-mailed code), trust devices, and reveal or rotate their keys after a step-up code.';
/** Zip entries carry this fixed time, so the archive is byte-for-byte the same on every build. */
const ZIP_TIME = new Date('2026-01-01T00:00:00Z');

function operations(openapi: OpenApi) {
  return Object.entries(openapi.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operation,
    })),
  );
}

function describeParameter(parameter: NonNullable<Operation['parameters']>[number]): string {
  const schema = parameter.schema ?? {};
  const bounds = [
    schema.minimum !== undefined ? `min ${schema.minimum}` : '',
    schema.maximum !== undefined ? `max ${schema.maximum}` : '',
    schema.default !== undefined ? `default ${schema.default}` : '',
    schema.format ? String(schema.format) : '',
  ].filter(Boolean);
  return `${parameter.name}${parameter.required ? '' : '?'}${bounds.length ? ` (${bounds.join(', ')})` : ''}`;
}

/** llms.txt: title, a one-paragraph summary, then sections, complete enough to write a client from. */
function llmsText(openapi: OpenApi): string {
  const lines = [`# Hadir RSVP data API (v${API_VERSION})`, '', `> ${SUMMARY}`, ''];
  for (const tag of ['Data', 'Portal']) {
    lines.push(
      tag === 'Data'
        ? '## Data endpoints (Authorization: Bearer hadir_sk_...)'
        : '## Portal endpoints (Authorization: Bearer <session token> where marked)',
      '',
    );
    for (const { method, path, operation } of operations(openapi)) {
      if (!operation.tags?.includes(tag)) continue;
      const query = (operation.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map(describeParameter);
      lines.push(
        `- ${method} ${path}: ${operation.summary ?? ''}${query.length ? `. Query: ${query.join(', ')}` : ''}`,
      );
    }
    lines.push('');
  }
  lines.push(
    '## Response shapes',
    '',
    '- Campaign: { id, slug, title, eventDate (ISO UTC or null), location (or null), responseCount }',
    '- Summary: { campaign: { id, slug, title }, totals: { responses, attending, notAttending, maybe, ... }, breakdowns: { fieldKey: { value: count } } }',
    '- Respondents page: { data: [ { id, submittedAt, attendanceStatus: YES|NO|MAYBE, fields: { key: string | string[] } } ], meta: { total, page, limit, totalPages, nextCursor } }',
    '- Removals page: { data: [ { id, removedAt } ], meta: { total, page, limit, totalPages, nextCursor, until } }',
    '- Fields: { data: [ { key, label, type, position } ] }',
    '',
  );
  for (const section of GUIDE) lines.push(`## ${section.title}`, '', section.markdown, '');
  lines.push('## MCP server for agents', '', MCP_NOTE, '');
  lines.push(
    '## Links',
    '',
    `- [OpenAPI 3.1 description](${LINKS.openapi})`,
    `- [Reference](${LINKS.docs})`,
    `- [Agent skill archive](${LINKS.skill})`,
    '',
  );
  return lines.join('\n');
}

/** What llms.txt and the skill say of hadir-mcp. */
const MCP_NOTE =
  "For hosts that start local servers (Claude Desktop), the same tools run in `hadir-mcp`, a stdio server installed with `npm install` from this service's `/developer/packages/` (the portal's Get started page shows how); `hadir-mcp print-config` prints the host's entry with absolute paths. It reads HADIR_BASE_URL and HADIR_API_KEY from its environment only; docs/integrating.md shows the configuration.";

function skillMarkdown(): string {
  return [
    '---',
    'name: hadir-rsvp-api',
    'description: Read RSVP campaign data (campaigns, attendance totals, per-question breakdowns, respondent rows) from a Hadir service with an API key, and keep a correct local copy. Use when asked to list, analyse, export or sync RSVPs from Hadir.',
    '---',
    '',
    '# Hadir RSVP data API',
    '',
    SUMMARY,
    '',
    '## When to use',
    '',
    'Use this skill when a task needs RSVP data from a Hadir service: counting who attends, breaking answers down, exporting respondents, or keeping a database in sync. You need the service URL and an API key (from its operator) in the environment; never print the key.',
    '',
    ...GUIDE.flatMap((section) => [`## ${section.title}`, '', section.markdown, '']),
    '## Files',
    '',
    '- `reference/openapi.json`: the full OpenAPI 3.1 description.',
    '- `scripts/sync-example.mjs`: a dependency-free client that follows R1 to R4 (`HADIR_BASE_URL=... HADIR_API_KEY=... node scripts/sync-example.mjs CAMPAIGN_ID`); the SDK and hadir-sync follow R5 too.',
    '',
    '## An MCP server instead',
    '',
    MCP_NOTE,
    '',
  ].join('\n');
}

export interface Reference {
  openapi: Artifact;
  docs: Artifact;
  docsPage: Artifact;
  llms: Artifact;
  skill: Artifact;
}

const EXAMPLE_CLIENT = new URL('./skill/sync-example.mjs', import.meta.url);

/** Every descriptive artifact, built from the one OpenAPI document the routes generate. */
export function buildReference(document: object): Reference {
  const openapi = document as OpenApi;
  const openapiJson = `${JSON.stringify(sortKeys(document), null, 2)}\n`;
  const docs = {
    title: 'Hadir RSVP data API',
    version: API_VERSION,
    summary: SUMMARY,
    sections: GUIDE,
    endpoints: operations(openapi).map(({ method, path, operation }) => ({
      method,
      path,
      tag: operation.tags?.[0] ?? null,
      summary: operation.summary ?? null,
      description: operation.description ?? null,
    })),
    links: LINKS,
  };
  const entry = (text: string | Buffer): [Uint8Array, { mtime: Date }] => [
    typeof text === 'string' ? strToU8(text) : new Uint8Array(text),
    { mtime: ZIP_TIME },
  ];
  const zip = zipSync(
    {
      'hadir-rsvp-api/SKILL.md': entry(skillMarkdown()),
      'hadir-rsvp-api/reference/openapi.json': entry(openapiJson),
      'hadir-rsvp-api/scripts/sync-example.mjs': entry(readFileSync(EXAMPLE_CLIENT)),
    },
    { level: 9, mtime: ZIP_TIME },
  );
  return {
    openapi: artifact(openapiJson, 'application/json; charset=utf-8'),
    docs: artifact(`${JSON.stringify(docs)}\n`, 'application/json; charset=utf-8'),
    docsPage: artifact(docsPageHtml('/developer/v1'), 'text/html; charset=utf-8'),
    llms: artifact(llmsText(openapi), 'text/plain; charset=utf-8'),
    skill: artifact(Buffer.from(zip), 'application/zip'),
  };
}
