import http from 'node:http';
import https from 'node:https';
import { AwsV4Signer } from 'aws4fetch';
import { lookupThrough, type Resolver } from '../outbound/resolver.ts';

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

/** Tries of one request that met a network error, a 5xx or a 429, before the run fails. */
const TRIES = 3;
/** The most of an answer's body that is read: a listing page of 1,000 keys is well under it. */
const ANSWER_BYTES = 4 * 1024 * 1024;

/** How a holder's bucket endpoint is looked up. */
export interface BucketLookups {
  resolve: Resolver;
  /** WEBHOOKS_ALLOW_PRIVATE_NETWORKS: a holder's bucket may be on this machine (development). */
  allowPrivateNetworks?: boolean;
}

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
export const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) =>
    unescapeXml(m[1] as string),
  );
export const text = (xml: string, tag: string) => texts(xml, tag)[0];

/** An answer of the bucket: its status, headers and (at most ANSWER_BYTES of) its body. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * Requests to one S3-compatible bucket: path-style (which every S3 clone serves), signed with AWS
 * Signature V4 by aws4fetch (the payload unsigned, as S3 allows), sent over node:http with agents
 * of their own, which look a holder's endpoint up through the address guard. The AWS SDK would
 * take some 36 MB of a serving process's memory for the few operations a delivery needs
 * (docs/performance.md, Deliveries to a bucket).
 */
export function s3Requests(target: BucketTarget, lookups: BucketLookups) {
  const publicOnly = !lookups.allowPrivateNetworks;
  const agentOptions = {
    keepAlive: true,
    maxSockets: 2,
    // A holder's endpoint is looked up by the resolver, never getaddrinfo (whose few threads one
    // silent name server would hold for every other lookup), and must be public; an operator's
    // own bucket is looked up as the system does (its /etc/hosts, its resolver).
    ...(target.publicOnly ? { lookup: lookupThrough(lookups.resolve, { publicOnly }) } : {}),
  };
  const agent = target.endpoint.startsWith('https:')
    ? new https.Agent(agentOptions)
    : new http.Agent(agentOptions);
  const base = target.endpoint.replace(/\/+$/, '');
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

  return { send, close: () => agent.destroy() };
}
