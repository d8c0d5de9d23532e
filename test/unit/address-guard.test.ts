import http from 'node:http';
import https from 'node:https';
import { describe, expect, it } from 'vitest';
import {
  endpointUrlProblem,
  postNotification,
  type Resolver,
} from '../../src/notifications/webhook-sender.ts';
import { refusedAddress } from '../../src/outbound/address-guard.ts';
import { urlProblem } from '../../src/outbound/url-problem.ts';

const REFUSED = [
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '10.1.2.3',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254', // cloud metadata
  '100.64.0.1', // carrier-grade NAT
  '100.100.100.200', // a cloud's metadata, inside carrier-grade NAT
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '198.18.0.1',
  '::',
  '::1',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd00:ec2::254', // a cloud's metadata over IPv6
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::127.0.0.1',
  '::ffff:0:7f00:1', // IPv4-translated 127.0.0.1
  '::ffff:0:a9fe:a9fe', // IPv4-translated 169.254.169.254
  '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
  '2002:c0a8:0101::1', // 6to4 of 192.168.1.1
];
const ALLOWED = ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

describe('the address guard', () => {
  it.each(REFUSED)('refuses %s', (address) => {
    expect(refusedAddress(address)).toMatch(/not a public address/);
  });

  it.each(ALLOWED)('allows %s', (address) => {
    expect(refusedAddress(address)).toBeUndefined();
  });

  it('takes only https URLs, without credentials, unless private networks are allowed', () => {
    expect(urlProblem('http://partner.example/hook', false)).toBe('must start with https://');
    expect(urlProblem('ftp://partner.example/hook', true)).toBe(
      'must start with https:// or http://',
    );
    expect(urlProblem('https://user:pw@partner.example/hook', false)).toMatch(/user name/);
    expect(urlProblem('https://127.0.0.1/hook', false)).toMatch(/not a public address/);
    expect(urlProblem('https://[::ffff:127.0.0.1]/hook', false)).toMatch(/not a public address/);
    expect(urlProblem('https://partner.example/hook', false)).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:8787/hook', true)).toBeUndefined();
    expect(urlProblem('https://[::ffff:0:7f00:1]/', false)).toMatch(/not a public address/);
  });

  it.each([
    'https://localhost/in',
    'https://LOCALHOST./in',
    'https://api.localhost/in',
    'https://ｌｏｃａｌｈｏｓｔ/in', // full-width look-alikes, mapped by the URL parser
    'https://localhost%2e/in',
  ])('refuses %s, this machine, without asking a resolver', (url) => {
    expect(urlProblem(url, false)).toMatch(/this machine|not a URL/);
  });

  it('judges a form’s URL as delivery does: by every address its host resolves to', async () => {
    const resolving =
      (table: Record<string, string>): Resolver =>
      async (host) => {
        const address = table[host];
        if (!address) throw Object.assign(new Error(`no ${host}`), { code: 'ENOTFOUND' });
        return [{ address, family: address.includes(':') ? 6 : 4 }];
      };
    const options = (resolve: Resolver) => ({
      resolve,
      allowPrivateNetworks: false,
      timeoutMs: 500,
    });
    const table = {
      'intern.partner.example': '10.1.2.3',
      'hooks.partner.example': '93.184.215.14',
    };
    expect(
      await endpointUrlProblem('https://intern.partner.example/in', options(resolving(table))),
    ).toBe(
      'names intern.partner.example resolves to 10.1.2.3, and 10.1.2.3 is not a public address',
    );
    expect(
      await endpointUrlProblem('https://hooks.partner.example/in', options(resolving(table))),
    ).toBeUndefined();
    // A name that does not resolve yet is left to delivery, which looks it up at every try.
    expect(
      await endpointUrlProblem('https://new.partner.example/in', options(resolving(table))),
    ).toBeUndefined();
    expect(await endpointUrlProblem('https://localhost/in', options(resolving(table)))).toMatch(
      /this machine/,
    );
  });
});

/** Agents that count the connections they are asked to open. */
function countingAgents() {
  const opened: string[] = [];
  class CountingHttps extends https.Agent {
    override createConnection(...args: Parameters<https.Agent['createConnection']>) {
      opened.push('https');
      return super.createConnection(...args);
    }
  }
  class CountingHttp extends http.Agent {
    override createConnection(...args: Parameters<http.Agent['createConnection']>) {
      opened.push('http');
      return super.createConnection(...args);
    }
  }
  return { opened, agents: { http: new CountingHttp(), https: new CountingHttps() } };
}

describe('sending to a refused address', () => {
  const send = async (url: string, resolve: Resolver) => {
    const { opened, agents } = countingAgents();
    const lookups: string[] = [];
    const outcome = await postNotification(url, {}, '{}', {
      resolve: async (host) => {
        lookups.push(host);
        return resolve(host);
      },
      allowPrivateNetworks: false,
      timeoutMs: 1_000,
      agents,
    });
    return { outcome, opened, lookups };
  };

  it.each([
    ['127.0.0.1', 4],
    ['10.0.0.7', 4],
    ['169.254.169.254', 4],
    ['::1', 6],
    ['::ffff:192.168.0.1', 6],
    ['fd12:3456::1', 6],
  ] as const)(
    'refuses a name that resolves to %s before any connection',
    async (address, family) => {
      const { outcome, opened, lookups } = await send(
        'https://hooks.partner.example/in',
        async () => [{ address, family }],
      );
      expect(outcome.kind).toBe('refused');
      expect(outcome.kind === 'refused' && outcome.error).toContain(
        'hooks.partner.example resolves to',
      );
      expect(lookups).toEqual(['hooks.partner.example']);
      expect(opened).toEqual([]);
    },
  );

  it('refuses a name when any one of its addresses is refused', async () => {
    const { outcome, opened } = await send('https://mixed.partner.example/in', async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.1', family: 4 },
    ]);
    expect(outcome.kind).toBe('refused');
    expect(opened).toEqual([]);
  });

  it.each([
    'https://127.0.0.1/in',
    'https://[::1]/in',
    'https://[::ffff:169.254.169.254]/in',
    'https://0x7f000001/in', // the URL parser reads it as 127.0.0.1
    'https://2130706433/in',
  ])('refuses the literal address of %s without a lookup', async (url) => {
    const { outcome, opened, lookups } = await send(url, async () => {
      throw new Error('a literal address must not be looked up');
    });
    expect(outcome.kind).toBe('refused');
    expect(lookups).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('refuses http:// without looking anything up', async () => {
    const { outcome, lookups, opened } = await send('http://hooks.partner.example/in', async () => [
      { address: '93.184.215.14', family: 4 },
    ]);
    expect(outcome).toMatchObject({ kind: 'refused', error: 'the URL must start with https://' });
    expect(lookups).toEqual([]);
    expect(opened).toEqual([]);
  });
});
