import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

const DOCUMENT = JSON.parse(
  readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'),
);

/**
 * The notifications' bodies as the published OpenAPI document describes them (its `webhooks`):
 * `check` throws, naming the type and the problem, for a body that does not match its type's
 * schema, and returns the type of one that does.
 */
export function eventContract() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajvFormats.default(ajv);
  ajv.addSchema({ ...DOCUMENT, $id: 'openapi.json' });
  return {
    types: Object.keys(DOCUMENT.webhooks) as string[],
    check(body: string): string {
      const { type } = JSON.parse(body) as { type: string };
      if (!(type in DOCUMENT.webhooks)) throw new Error(`an event of an unpublished type: ${type}`);
      const pointer = ['webhooks', type, 'post', 'requestBody', 'content', 'application~1json']
        .map((part) => part.replaceAll('/', '~1'))
        .join('/');
      const valid = ajv.validate({ $ref: `openapi.json#/${pointer}/schema` }, JSON.parse(body));
      if (!valid) throw new Error(`${type} does not match its schema: ${ajv.errorsText()}`);
      return type;
    },
  };
}
