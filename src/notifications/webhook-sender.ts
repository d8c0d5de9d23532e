import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddress } from '../outbound/address-guard.ts';
import type { Resolver } from '../outbound/resolver.ts';
import { hostOf, urlProblem } from '../outbound/url-problem.ts';

export type { Resolver };

export interface SenderOptions {
  resolve: Resolver;
  /** WEBHOOKS_ALLOW_PRIVATE_NETWORKS: development and tests only; also allows `http://`. */
  allowPrivateNetworks: boolean;
  /** The whole attempt, lookup to the answer's last byte read, fits in this. */
  timeoutMs: number;
  /** Connections go through these (tests count them). */
  agents?: { http: http.Agent; https: https.Agent };
}

export type SendOutcome =
  | { kind: 'delivered'; status: number; durationMs: number }
  | { kind: 'failed'; status: number | null; error: string; durationMs: number }
  /** Refused before any connection: the URL or its address may not be reached. */
  | { kind: 'refused'; error: string; durationMs: 0 };

/**
 * Why a URL may not receive notifications, judged as delivery judges it: urlProblem, then every
 * address its host resolves to. A host that cannot be resolved now is not refused: delivery
 * looks it up again at each attempt.
 */
export async function endpointUrlProblem(
  text: string,
  options: Pick<SenderOptions, 'resolve' | 'allowPrivateNetworks' | 'timeoutMs'>,
): Promise<string | undefined> {
  const problem = urlProblem(text, options.allowPrivateNetworks);
  if (problem || options.allowPrivateNetworks) return problem;
  try {
    const judged = await withinDeadline(addressFor(new URL(text), options), options.timeoutMs);
    return judged !== 'late' && 'refused' in judged ? `names ${judged.refused}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The address to connect to: the host is resolved here, at connect time, and every address it
 * has must be public (a literal address is judged as it is: it skips any lookup). The connection
 * is then pinned to the address judged, so a second lookup cannot swap it.
 */
async function addressFor(
  url: URL,
  options: Pick<SenderOptions, 'resolve' | 'allowPrivateNetworks'>,
): Promise<{ address: string; family: number } | { refused: string }> {
  const host = hostOf(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await options.resolve(host);
  if (addresses.length === 0) return { refused: `${host} has no address` };
  if (!options.allowPrivateNetworks) {
    for (const { address } of addresses) {
      const refused = refusedAddress(address);
      if (refused)
        return { refused: family ? refused : `${host} resolves to ${address}, and ${refused}` };
    }
  }
  return addresses[0] as { address: string; family: number };
}

/** How much of an answer's body is read (and thrown away) before the connection is closed. */
export const ANSWER_BYTES_READ = 16 * 1024;

/**
 * Connections for notifications: kept alive between deliveries to one receiver, but bounded in
 * number, and an idle one is closed after the attempt deadline.
 */
export function notificationAgents(maxSockets: number, idleMs: number) {
  const options = {
    keepAlive: true,
    maxTotalSockets: maxSockets,
    maxFreeSockets: 32,
    timeout: idleMs,
  };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/**
 * POSTs one signed notification. A 2xx is delivered; anything else (a redirect too: never
 * followed) failed. The whole attempt (lookup, connection, TLS, headers, and at most
 * ANSWER_BYTES_READ of the answer's body) fits in `timeoutMs`: past that, or past those bytes,
 * the connection is closed. It resolves once the connection is done with, so a receiver that
 * holds its answer open holds its own slot, never more.
 */
export async function postNotification(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SenderOptions,
): Promise<SendOutcome> {
  const problem = urlProblem(target, options.allowPrivateNetworks);
  if (problem) return { kind: 'refused', error: `the URL ${problem}`, durationMs: 0 };
  const url = new URL(target);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const late = () => `no answer within ${options.timeoutMs / 1000} s`;
  let pinned: Awaited<ReturnType<typeof addressFor>> | 'late';
  try {
    pinned = await withinDeadline(addressFor(url, options), options.timeoutMs);
  } catch (error) {
    return {
      kind: 'failed',
      status: null,
      error: `lookup: ${messageOf(error)}`,
      durationMs: elapsed(),
    };
  }
  if (pinned === 'late') {
    return { kind: 'failed', status: null, error: `${late()} (lookup)`, durationMs: elapsed() };
  }
  if ('refused' in pinned) return { kind: 'refused', error: pinned.refused, durationMs: 0 };
  const { address, family } = pinned;
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const secure = url.protocol === 'https:';
  const request = (secure ? https : http).request;
  return new Promise<SendOutcome>((resolve) => {
    let outcome: SendOutcome | undefined;
    let finished = false;
    // The outcome is known at the status line; the promise resolves when the connection is done.
    const finish = (fallback?: SendOutcome) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      resolve(outcome ?? (fallback as SendOutcome));
    };
    const outgoing = request(url, {
      method: 'POST',
      lookup,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Hadir-Webhooks/1',
      },
      ...(options.agents ? { agent: secure ? options.agents.https : options.agents.http } : {}),
    });
    const timer = setTimeout(
      () => {
        outgoing.destroy();
        finish({ kind: 'failed', status: null, error: late(), durationMs: elapsed() });
      },
      Math.max(0, options.timeoutMs - elapsed()),
    );
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      outcome =
        status >= 200 && status < 300
          ? { kind: 'delivered', status, durationMs: elapsed() }
          : {
              kind: 'failed',
              status,
              error:
                status >= 300 && status < 400
                  ? 'redirect to elsewhere (not followed)'
                  : `HTTP ${status}`,
              durationMs: elapsed(),
            };
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > ANSWER_BYTES_READ) outgoing.destroy();
      });
      response.on('end', () => finish());
      response.on('close', () => finish());
    });
    outgoing.on('error', (error) =>
      finish({ kind: 'failed', status: null, error: messageOf(error), durationMs: elapsed() }),
    );
    outgoing.on('close', () =>
      finish({
        kind: 'failed',
        status: null,
        error: 'the connection closed',
        durationMs: elapsed(),
      }),
    );
    outgoing.end(body);
  });
}

/** The promise's value, or 'late' once `ms` have passed. */
async function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
