import { createHash } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Transform, type Writable } from 'node:stream';
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

/** Bytes buffered per part of an upload (S3's least part is 5 MiB). */
const PART_BYTES = 8 * 1024 * 1024;

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

type S3 = typeof import('@aws-sdk/client-s3');
type Storage = typeof import('@aws-sdk/lib-storage');
/** The AWS SDK, loaded with the first delivery a process runs: most processes never run one. */
let loading: Promise<[S3, Storage]> | undefined;
const loadSdk = () => {
  loading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return loading;
};

/** Opens a client for the target's bucket (path-style addressing, which every S3 clone serves). */
export async function openBucket(target: BucketTarget): Promise<Bucket> {
  const [s3, storage] = await loadSdk();
  const agentOptions = {
    keepAlive: true,
    maxSockets: 4,
    ...(target.publicOnly ? { lookup: publicLookup } : {}),
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);
  const client = new s3.S3Client({
    endpoint: target.endpoint,
    region: target.region,
    credentials: target.credentials,
    forcePathStyle: true,
    maxAttempts: 3,
    // Checksums only where S3 requires them: several S3-compatible stores refuse the others.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { httpAgent, httpsAgent, connectionTimeout: 10_000, requestTimeout: 60_000 },
  });
  const Bucket = target.bucket;
  const top = target.prefix === '' ? '' : `${target.prefix}/`;

  async function* keysUnder(prefix: string): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await client.send(
        new s3.ListObjectsV2Command({
          Bucket,
          Prefix: prefix,
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  return {
    keyOf: (run, name) => `${top}${run}/${name}`,

    async upload(key, contentType, write) {
      const hash = createHash('sha256');
      let bytes = 0;
      const body = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      const upload = new storage.Upload({
        client,
        params: { Bucket, Key: key, Body: body, ContentType: contentType },
        queueSize: 1,
        partSize: PART_BYTES,
        leavePartsOnError: false,
      });
      const stored = upload.done();
      // A bucket that fails stops reading: the writer would wait for room forever.
      const failed = stored.then(
        () => new Promise<never>(() => {}),
        (error: unknown) => Promise.reject(error),
      );
      const writing = write(body);
      writing.catch(() => {});
      try {
        const rows = await Promise.race([writing, failed]);
        body.end();
        await stored;
        return { bytes, sha256: hash.digest('hex'), rows };
      } catch (error) {
        body.destroy();
        await upload.abort().catch(() => {});
        throw error;
      }
    },

    async sizeOf(key) {
      try {
        const head = await client.send(new s3.HeadObjectCommand({ Bucket, Key: key }));
        return head.ContentLength;
      } catch (error) {
        if ((error as { name?: string }).name === 'NotFound') return undefined;
        throw error;
      }
    },

    async put(key, body, contentType) {
      await client.send(
        new s3.PutObjectCommand({ Bucket, Key: key, Body: body, ContentType: contentType }),
      );
    },

    async runs() {
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new s3.ListObjectsV2Command({
            Bucket,
            Prefix: top,
            Delimiter: '/',
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        for (const common of page.CommonPrefixes ?? []) {
          const name = common.Prefix?.slice(top.length, -1);
          if (name && RUN_NAME.test(name)) names.push(name);
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return names.sort();
    },

    async removeRun(run) {
      let removed = 0;
      // One object at a time: DeleteObjects needs a checksum that some S3 clones do not take.
      for await (const key of keysUnder(`${top}${run}/`)) {
        await client.send(new s3.DeleteObjectCommand({ Bucket, Key: key }));
        removed += 1;
      }
      return removed;
    },

    close() {
      client.destroy();
      httpAgent.destroy();
      httpsAgent.destroy();
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
