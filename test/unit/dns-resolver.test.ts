import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { postNotification } from '../../src/notifications/webhook-sender.ts';
import { dnsResolver } from '../../src/outbound/resolver.ts';
import { startNameServer } from '../helpers/name-server.ts';

describe('the resolver of notification deliveries', () => {
  it('answers a healthy endpoint in its normal time while another’s name server never answers', async () => {
    const names = await startNameServer({ 'healthy.partner.test': '127.0.0.1' }, [
      'silent.partner.test',
    ]);
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const resolve = dnsResolver({ servers: [names.server] });
    const sender = { resolve, allowPrivateNetworks: true, timeoutMs: 10_000 };
    try {
      // More lookups hang than libuv has threads for getaddrinfo (4): none may hold the others.
      const hanging = Array.from({ length: 8 }, () =>
        postNotification('http://silent.partner.test/hook', {}, '{}', sender),
      );
      await new Promise((settle) => setTimeout(settle, 50));
      const healthy = [];
      for (let n = 0; n < 3; n++) {
        healthy.push(
          await postNotification(`http://healthy.partner.test:${port}/hook`, {}, '{}', sender),
        );
      }
      for (const outcome of healthy) {
        expect(outcome.kind).toBe('delivered');
        expect(outcome.durationMs).toBeLessThan(1_000);
      }
      // The silent one ends at its own deadline, as a failed lookup.
      const cut = await Promise.all(hanging);
      for (const outcome of cut) {
        expect(outcome).toMatchObject({ kind: 'failed', status: null });
        expect(outcome.kind === 'failed' && outcome.error).toMatch(/lookup/);
      }
    } finally {
      receiver.close();
      await names.close();
    }
  }, 30_000);

  it('answers localhost itself, as RFC 6761 has it, without asking a name server', async () => {
    const names = await startNameServer({}, []);
    try {
      const addresses = await dnsResolver({ servers: [names.server] })('localhost');
      expect(addresses.map((one) => one.address)).toEqual(['127.0.0.1', '::1']);
      expect(names.asked.size).toBe(0);
    } finally {
      await names.close();
    }
  });

  it('says a name that does not exist is not found', async () => {
    const names = await startNameServer({}, []);
    try {
      await expect(dnsResolver({ servers: [names.server] })('nope.partner.test')).rejects.toThrow(
        /ENOTFOUND|queryA/,
      );
    } finally {
      await names.close();
    }
  });
});
