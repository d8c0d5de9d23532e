import { Resolver as DnsResolver } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { refusedAddress } from './address-guard.ts';

/** Every address a host name resolves to (injected in tests: no test resolves a real name). */
export type Resolver = (
  host: string,
) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** How long one question to a DNS server may wait, and how often it is asked. */
const DNS_TRY_MS = 2_000;
const DNS_TRIES = 2;
/**
 * Names being looked up at once, past which a lookup waits its turn: each is a query on a socket
 * of its own, cheap, but a flood of them must not be. The same name asked again meanwhile shares
 * the lookup under way, so only as many names as holders typed can fill it.
 */
export const MOST_LOOKUPS_AT_ONCE = 256;

/**
 * Resolves through DNS itself (c-ares), with a deadline of its own, rather than the system's
 * getaddrinfo: that runs on libuv's few shared threads and cannot be abandoned, so one
 * endpoint whose name server never answers would hold them all, and every other endpoint's
 * lookup (and the process's file reads) would queue behind it. Here each question waits its
 * own timeout, and many wait at once (up to MOST_LOOKUPS_AT_ONCE names). `servers` (host:port)
 * replace the system's name servers, `tryMs` the wait for one answer (tests shorten it). Names in /etc/hosts are not consulted: the destinations a
 * holder or partner types are public hosts.
 */
export function dnsResolver(
  options: { servers?: readonly string[]; tryMs?: number } = {},
): Resolver {
  const resolver = new DnsResolver({ timeout: options.tryMs ?? DNS_TRY_MS, tries: DNS_TRIES });
  if (options.servers) resolver.setServers([...options.servers]);
  const underWay = new Map<string, Promise<ReadonlyArray<{ address: string; family: number }>>>();
  const waiting: Array<() => void> = [];
  let running = 0;
  const turn = async () => {
    if (running >= MOST_LOOKUPS_AT_ONCE) await new Promise<void>((go) => waiting.push(go));
    running++;
  };
  const done = () => {
    running--;
    waiting.shift()?.();
  };
  const lookUp = async (host: string) => {
    // RFC 6761: localhost is this machine, without asking anyone (a name server may not know it).
    const name = host.replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) {
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    }
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    throw v4.status === 'rejected' ? v4.reason : new Error(`${host} has no address`);
  };
  return (host) => {
    const name = host.toLowerCase();
    let lookup = underWay.get(name);
    if (!lookup) {
      lookup = (async () => {
        await turn();
        try {
          return await lookUp(host);
        } finally {
          done();
        }
      })().finally(() => underWay.delete(name));
      underWay.set(name, lookup);
    }
    return lookup;
  };
}

/**
 * A lookup for node:http agents that asks `resolve` (never getaddrinfo), and with `publicOnly`
 * refuses a host any of whose addresses is loopback, private or otherwise not public, before a
 * connection is made to it.
 */
export function lookupThrough(resolve: Resolver, options: { publicOnly: boolean }): LookupFunction {
  return (host, lookupOptions, callback) => {
    resolve(host).then(
      (found) => {
        if (options.publicOnly) {
          for (const { address } of found) {
            const refused = refusedAddress(address);
            if (refused) {
              const error = new Error(`${host} resolves to ${address}, and ${refused}`);
              return callback(Object.assign(error, { code: 'EREFUSEDADDRESS' }), '', 0);
            }
          }
        }
        const family = (lookupOptions as { family?: number }).family;
        const fitting =
          family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
        const first = fitting[0];
        if (!first) {
          return callback(
            Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        }
        if ((lookupOptions as { all?: boolean }).all) {
          (callback as (...args: unknown[]) => void)(null, fitting);
        } else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

export const systemResolver: Resolver = dnsResolver();
