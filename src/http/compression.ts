import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { CachedResponse } from './response-cache.ts';

/** The content codings a data answer may go out in, best first when the client takes several. */
export type ContentCoding = 'br' | 'gzip';

/** Below this, a header and a round of compression cost more than the bytes they save. */
export const MIN_COMPRESSED_BYTES = 1024;

const compressors: Record<ContentCoding, (body: Buffer) => Promise<Buffer>> = {
  // Quality 4 compresses a page as well as gzip's 6 or better, in about a third of its time.
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 4,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 6 }),
};

/**
 * The coding to answer with, from Accept-Encoding (RFC 9110 12.5.3): brotli, else gzip, each
 * unless the client gave it q=0; none for a body too small to gain from it.
 */
export function chooseCoding(
  acceptEncoding: string | undefined,
  bytes: number,
): ContentCoding | undefined {
  if (acceptEncoding === undefined || bytes < MIN_COMPRESSED_BYTES) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...parameters] = part.trim().split(';');
    const q = parameters.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name) accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (coding: ContentCoding) => accepted.get(coding) ?? accepted.get('*') ?? 0;
  const best = (['br', 'gzip'] as const).filter((coding) => weight(coding) > 0);
  return best.sort((a, b) => weight(b) - weight(a))[0];
}

/**
 * Compressed bodies of data answers, kept beside the answer they compress for as long as that
 * answer lives (the response cache holds it, or the requests of one turn share it): a cached
 * answer is compressed once per coding.
 */
const compressed = new WeakMap<CachedResponse, Map<ContentCoding, Promise<Buffer>>>();

export function compressedBody(response: CachedResponse, coding: ContentCoding): Promise<Buffer> {
  let codings = compressed.get(response);
  if (!codings) {
    codings = new Map();
    compressed.set(response, codings);
  }
  let body = codings.get(coding);
  if (!body) {
    body = compressors[coding](response.body);
    codings.set(coding, body);
  }
  return body;
}

/** The ETag of one coding of an answer: each representation has a tag of its own. */
export const codedEtag = (etag: string, coding: ContentCoding | undefined) =>
  coding === undefined ? etag : `${etag.slice(0, -1)}-${coding}"`;
