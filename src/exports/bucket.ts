import { createHash } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { AwsV4Signer } from 'aws4fetch';
import { refusedAddress } from '../notifications/address-guard.ts';
import { RUN_NAME } from './export-schedule.ts';

/** Where a delivery writes: an S3-compatible bucket, a prefix in it, and how to reach it. */
export interface BucketTarget {
  bucket: string;
  /** Without slashes at either end; '' for the bucket's top. */
  prefix: string;
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** A holder's bucket must be on a public address; an operator's may be anywhere. */
  publicOnly: boolean;
}

/** An object as it was stored: its size and SHA-256 (hex), and the rows its writer wrote. */
export interface StoredObject {
  bytes: number;
  sha256: string;
  rows: number;
}

export interface Bucket {
  /** The object's key: `PREFIX/run/name`. */
  keyOf(run: string, name: string): string;
  /**
   * Streams what `write` writes to `key` (a multipart upload past a part's size, so memory holds a
   * part or two whatever the file's size), hashing it on the way. Resolves once it is stored.
   */
  upload(
    key: string,
    contentType: string,
    write: (out: Writable) => Promise<number>,
  ): Promise<StoredObject>;
  /** The object's size as the bucket reports it, or undefined when it has none under `key`. */
  sizeOf(key: string): Promise<number | undefined>;
  put(key: string, body: string, contentType: string): Promise<void>;
  /** The run folders under the prefix, oldest first (their names sort by time). */
  runs(): Promise<string[]>;
  /** Deletes every object of a run's folder; resolves with how many there were. */
  removeRun(run: string): Promise<number>;
  close(): void;
}

/**
 * Bytes buffered per part of an upload: S3's least part size. One part is held at a time (the
 * writer waits while it uploads), so a file of any size takes this much memory.
 */
const PART_BYTES = 5 * 1024 * 1024;
/** Tries of one request that met a network error, a 5xx or a 429, before the run fails. */
const TRIES = 3;
/** The most of an answer's body that is read: a listing page of 1,000 keys is well under it. */
const ANSWER_BYTES = 4 * 1024 * 1024;

/** A lookup that refuses loopback, private and the other addresses a partner's URL must not reach. */
const publicLookup: LookupFunction = (host, options, callback) => {
  dnsLookup(host, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    for (const { address } of list) {
      const refused = refusedAddress(address);
      if (refused) {
        return callback(
          Object.assign(new Error(`${host} resolves to ${address}, and ${refused}`), {
            code: 'EREFUSEDADDRESS',
          }),
          '',
          0,
        );
      }
    }
    const first = list[0] as LookupAddress;
    if ((options as { all?: boolean }).all) (callback as (...args: unknown[]) => void)(null, list);
    else callback(null, first.address, first.family);
  });
};

/** An S3 error answer: its code (NoSuchBucket, AccessDenied…) and HTTP status. */
export class BucketError extends Error {
  readonly code: string;
  readonly $metadata: { httpStatusCode: number };
  constructor(code: string, status: number, message: string) {
    super(message);
    this.name = code;
    this.code = code;
    this.$metadata = { httpStatusCode: status };
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string) =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] ?? whole),
  );
/** Every text of `tag` in an S3 answer (its XML is flat where these are read). */
const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) =>
    unescapeXml(m[1] as string),
  );
const text = (xml: string, tag: string) => texts(xml, tag)[0];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A client of one S3-compatible bucket: path-style requests (which every S3 clone serves) signed
 * with AWS Signature V4 by aws4fetch, sent over node:http with this delivery's agents. The few
 * operations a delivery needs, and no more: the AWS SDK would take some 36 MB of a serving
 * process's memory for them (docs/performance.md, Deliveries to a bucket).
 */
export async function openBucket(target: BucketTarget): Promise<Bucket> {
  const agentOptions = {
    keepAlive: true,
    maxSockets: 2,
    ...(target.publicOnly ? { lookup: publicLookup } : {}),
  };
  const agent = target.endpoint.startsWith('https:')
    ? new https.Agent(agentOptions)
    : new http.Agent(agentOptions);
  const base = target.endpoint.replace(/\/+$/, '');
  const top = target.prefix === '' ? '' : `${target.prefix}/`;
  const pathOf = (key: string) =>
    `/${encodeURIComponent(target.bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;

  /** One signed request, tried again on a network error, a 5xx or a 429; a 3xx/4xx throws. */
  async function send(
    method: string,
    key: string,
    query: Record<string, string> = {},
    body?: Buffer | string,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const url = new URL(`${base}${pathOf(key)}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    for (let attempt = 1; ; attempt += 1) {
      const signed = await new AwsV4Signer({
        method,
        url: url.toString(),
        headers,
        accessKeyId: target.credentials.accessKeyId,
        secretAccessKey: target.credentials.secretAccessKey,
        service: 's3',
        region: target.region,
      }).sign();
      try {
        const answer = await request(
          url,
          method,
          {
            ...Object.fromEntries(signed.headers.entries()),
            'content-length': String(body === undefined ? 0 : Buffer.byteLength(body)),
          },
          body,
        );
        // S3 may answer a completed multipart upload 200 with an error in its body.
        const failed =
          answer.status >= 300 || (answer.body.startsWith('<?xml') && /<Error>/.test(answer.body));
        if (!failed) return answer;
        const error = new BucketError(
          text(answer.body, 'Code') ??
            (answer.status === 404 ? 'NotFound' : `HTTP${answer.status}`),
          answer.status,
          text(answer.body, 'Message') ?? `the bucket answered ${answer.status}`,
        );
        if ((answer.status < 500 && answer.status !== 429) || attempt === TRIES) throw error;
      } catch (error) {
        if (error instanceof BucketError || attempt === TRIES) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
    }
  }

  function request(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | string | undefined,
  ): Promise<Answer> {
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const sent = transport.request(url, { method, headers, agent, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        let length = 0;
        res.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length <= ANSWER_BYTES) chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      });
      sent.on('timeout', () =>
        sent.destroy(
          Object.assign(new Error('the endpoint did not answer in time'), { code: 'ETIMEDOUT' }),
        ),
      );
      sent.on('error', reject);
      sent.end(body);
    });
  }

  /** Every object key under `prefix`, a listing page at a time. */
  async function* keysUnder(prefix: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await send('GET', '', {
        'list-type': '2',
        prefix,
        ...(token ? { 'continuation-token': token } : {}),
      });
      yield* texts(page.body, 'Key');
      token =
        text(page.body, 'IsTruncated') === 'true'
          ? text(page.body, 'NextContinuationToken')
          : undefined;
    } while (token);
  }

  return {
    keyOf: (run, name) => `${top}${run}/${name}`,

    async upload(key, contentType, write) {
      const hash = createHash('sha256');
      let bytes = 0;
      let held: Buffer[] = [];
      let heldBytes = 0;
      let uploadId: string | undefined;
      const parts: string[] = [];
      let failure: unknown;
      const sendPart = async () => {
        const body = Buffer.concat(held);
        held = [];
        heldBytes = 0;
        if (uploadId === undefined) {
          const started = await send('POST', key, { uploads: '' }, undefined, {
            'content-type': contentType,
          });
          uploadId = text(started.body, 'UploadId');
          if (!uploadId) throw new Error('the bucket started no multipart upload');
        }
        const part = await send(
          'PUT',
          key,
          { partNumber: String(parts.length + 1), uploadId },
          body,
        );
        parts.push(String(part.headers.etag ?? ''));
      };
      const out = new Writable({
        write(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          bytes += chunk.length;
          held.push(chunk);
          heldBytes += chunk.length;
          // The writer waits while a full part uploads: one part is held at a time.
          if (heldBytes < PART_BYTES) return done();
          sendPart().then(
            () => done(),
            (error: unknown) => {
              failure = error;
              done(error as Error);
            },
          );
        },
        final(done) {
          const finishing =
            uploadId === undefined
              ? send('PUT', key, {}, Buffer.concat(held), { 'content-type': contentType })
              : (heldBytes > 0 ? sendPart() : Promise.resolve()).then(() =>
                  send(
                    'POST',
                    key,
                    { uploadId: uploadId as string },
                    `<CompleteMultipartUpload>${parts.map((etag, n) => `<Part><PartNumber>${n + 1}</PartNumber><ETag>${etag.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}</ETag></Part>`).join('')}</CompleteMultipartUpload>`,
                    { 'content-type': 'application/xml' },
                  ),
                );
          finishing.then(
            () => done(),
            (error: unknown) => {
              failure = error;
              done(error as Error);
            },
          );
        },
      });
      out.on('error', () => {});
      try {
        const rows = await write(out);
        out.end();
        await finished(out);
        return { bytes, sha256: hash.digest('hex'), rows };
      } catch (error) {
        out.destroy();
        if (uploadId !== undefined) {
          await send('DELETE', key, { uploadId }).catch(() => {});
        }
        throw failure ?? error;
      }
    },

    async sizeOf(key) {
      try {
        const head = await send('HEAD', key);
        return Number(head.headers['content-length']);
      } catch (error) {
        if (error instanceof BucketError && error.$metadata.httpStatusCode === 404)
          return undefined;
        throw error;
      }
    },

    async put(key, body, contentType) {
      await send('PUT', key, {}, body, { 'content-type': contentType });
    },

    async runs() {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await send('GET', '', {
          'list-type': '2',
          prefix: top,
          delimiter: '/',
          ...(token ? { 'continuation-token': token } : {}),
        });
        for (const [, inner] of page.body.matchAll(/<CommonPrefixes>(.*?)<\/CommonPrefixes>/gs)) {
          const name = text(inner as string, 'Prefix')?.slice(top.length, -1);
          if (name && RUN_NAME.test(name)) names.push(name);
        }
        token =
          text(page.body, 'IsTruncated') === 'true'
            ? text(page.body, 'NextContinuationToken')
            : undefined;
      } while (token);
      return names.sort();
    },

    async removeRun(run) {
      let removed = 0;
      const keys: string[] = [];
      for await (const key of keysUnder(`${top}${run}/`)) keys.push(key);
      for (const key of keys) {
        await send('DELETE', key);
        removed += 1;
      }
      return removed;
    },

    close() {
      agent.destroy();
    },
  };
}

/**
 * A bucket's failure in words a holder can act on, with no value of a guest in it: the store's
 * error code and what it means, or the network's.
 */
export function bucketProblem(error: unknown): string {
  const failure = error as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = failure.$metadata?.httpStatusCode;
  const known: Record<string, string> = {
    NoSuchBucket: 'the bucket does not exist',
    AccessDenied: 'the bucket refused these credentials this access',
    InvalidAccessKeyId: 'the bucket does not know this access key',
    SignatureDoesNotMatch: 'the secret key does not match the access key',
    EREFUSEDADDRESS: failure.message ?? 'the endpoint is on an address deliveries may not reach',
    ECONNREFUSED: 'the endpoint refused the connection',
    ENOTFOUND: 'the endpoint’s name does not resolve',
    ETIMEDOUT: 'the endpoint did not answer in time',
    TimeoutError: 'the endpoint did not answer in time',
  };
  const code = failure.code ?? failure.name ?? 'Error';
  const words = known[code] ?? failure.message?.slice(0, 200) ?? 'the bucket failed';
  return status ? `${code} (HTTP ${status}): ${words}` : `${code}: ${words}`;
}
