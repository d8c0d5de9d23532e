import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.ts';

describe("the SDK's types", () => {
  it('are the ones generated from openapi/openapi.json (run npm run openapi after a change)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes());
  });
});
