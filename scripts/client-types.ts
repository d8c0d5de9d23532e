/**
 * The SDK's response types, generated from openapi/openapi.json, and the relay's from
 * openapi/ingest.json, so that neither can drift from the server's schemas.
 */
import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

export const OPENAPI_FILE = new URL('../openapi/openapi.json', import.meta.url);
export const CLIENT_TYPES_FILE = new URL(
  '../packages/client/src/api-types.generated.ts',
  import.meta.url,
);

const HEADER = `/**
 * Generated from openapi/openapi.json by \`npm run openapi\`. Do not edit: a test fails when this
 * file and the document disagree.
 */

`;

export async function clientTypes(): Promise<string> {
  const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
  return HEADER + astToString(await openapiTS(document));
}

export const INGEST_DOCUMENT_FILE = new URL('../openapi/ingest.json', import.meta.url);
export const RELAY_TYPES_FILE = new URL(
  '../packages/relay/src/ingest-types.generated.ts',
  import.meta.url,
);

/** The ingest API's document for platforms, from src/ingest/ingest.schemas.ts. */
export async function ingestDocumentText(): Promise<string> {
  const { ingestDocument } = await import('../src/ingest/ingest.schemas.ts');
  const { version } = JSON.parse(
    readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return `${JSON.stringify(ingestDocument(version), null, 2)}\n`;
}

export async function relayTypes(): Promise<string> {
  const document = JSON.parse(await ingestDocumentText());
  return (
    HEADER.replace('openapi/openapi.json', 'openapi/ingest.json') +
    astToString(await openapiTS(document))
  );
}
