import ajvFormats from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';
import { parseInstant } from '../instant.ts';

type AjvPlugins = NonNullable<NonNullable<FastifyServerOptions['ajv']>['plugins']>;

interface FormatHost {
  addFormat(name: string, format: { type: 'string'; validate: (text: string) => boolean }): unknown;
}

/** `date-time` means what `since` accepts: any ISO-8601 date-time with Z or an offset. */
function isoDateTimeFormat<A extends FormatHost>(ajv: A): A {
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => parseInstant(text) !== undefined,
  });
  return ajv;
}

/**
 * ajv-formats first (passing it here stops Fastify from adding it again after us), then our
 * date-time over its stricter RFC 3339 one. The cast bridges ajv-formats' narrower option type.
 */
export const ajvPlugins = [ajvFormats.default, isoDateTimeFormat] as unknown as AjvPlugins;
