import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { RUN_NAME } from './export-schedule.ts';
import {
  BucketError,
  type BucketLookups,
  type BucketTarget,
  s3Requests,
  text,
  texts,
} from './s3-requests.ts';

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
/**
 * A client of one S3-compatible bucket: the few operations a delivery needs (see s3-requests.ts
 * for how each is sent), an upload holding one part at a time.
 */
export async function openBucket(target: BucketTarget, lookups: BucketLookups): Promise<Bucket> {
  const { send, close } = s3Requests(target, lookups);
  const top = target.prefix === '' ? '' : `${target.prefix}/`;

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

    close,
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
