import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

interface QuerySchema {
  properties?: Record<string, { type?: unknown }>;
  patternProperties?: Record<string, { type?: unknown }>;
}

/** An integer as people write one; its bounds are the schema's to check. */
const DIGITS = /^-?[0-9]+$/;
const integerNames = new WeakMap<object, ReadonlySet<string>>();

/** The names of a querystring schema's integer parameters, found once per schema. */
function integersOf(schema: QuerySchema): ReadonlySet<string> {
  let names = integerNames.get(schema);
  if (!names) {
    names = new Set(
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => property.type === 'integer')
        .map(([name]) => name),
    );
    integerNames.set(schema, names);
  }
  return names;
}

const listPatterns = new WeakMap<object, readonly RegExp[]>();

/** The patterns of a querystring schema's parameters that take a list (given once per value). */
function listsOf(schema: QuerySchema): readonly RegExp[] {
  let patterns = listPatterns.get(schema);
  if (!patterns) {
    patterns = Object.entries(schema.patternProperties ?? {})
      .filter(([, property]) => property.type === 'array')
      .map(([pattern]) => new RegExp(pattern));
    listPatterns.set(schema, patterns);
  }
  return patterns;
}

/**
 * Query parameters as the route's schema writes them: each given once (but a list's, once per
 * value), integers in plain decimal digits. Ajv's coercion, which runs next, would read `1e3`,
 * `0x10`, `Infinity` or ` 2` as numbers and a repeated parameter as a list; this looks at the raw
 * text first.
 */
export async function strictQuery(request: FastifyRequest): Promise<void> {
  const schema = request.routeOptions.schema?.querystring as QuerySchema | undefined;
  if (!schema) return;
  const integers = integersOf(schema);
  for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (Array.isArray(value) && !listsOf(schema).some((pattern) => pattern.test(name))) {
      throw new ApiError('invalid_parameter', `query parameter '${name}' is given more than once`);
    }
    if (integers.has(name) && typeof value === 'string' && !DIGITS.test(value)) {
      throw new ApiError(
        'invalid_parameter',
        `query parameter '${name}' must be a whole number in decimal digits, e.g. ${name}=2`,
      );
    }
  }
}
