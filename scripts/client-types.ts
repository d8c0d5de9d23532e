/** The SDK's response types, generated from openapi/openapi.json so they cannot drift from it. */
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
