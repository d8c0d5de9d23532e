// What the notifications tell: the events, their bodies and signatures, and whom they reach.
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { importDocument } from '../../../src/import/import.service.ts';
import { EVENT_TYPES } from '../../../src/journal/events.ts';
import { CHANGE_WINDOW_MS } from '../../../src/journal/journal.repository.ts';
import { replaceKeyScope, revokeKey } from '../../../src/keys/keys.service.ts';
import {
  addEndpoint,
  listDeliveries,
  rotateSecret,
  sendTestEvent,
  TEST_EVENT_INTERVAL_MS,
  TestEventTooSoon,
} from '../../../src/notifications/endpoints.service.ts';
import { noticeExpiringKeys } from '../../../src/notifications/housekeeping.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import { eventContract } from '../../helpers/event-contract.ts';
import { createTestKey } from '../../helpers/factories.ts';
import {
  DAY,
  deliveriesOf,
  queueTestEvent,
  respondent,
  useNotificationWorld,
  type World,
} from '../../helpers/notification-world.ts';
import { ENGINES } from '../../helpers/stores.ts';

describe.each(ENGINES)('change notifications on %s', (engine) => {
  let w: World;
  useNotificationWorld(engine, (world) => {
    w = world;
  });

  it('sends a signed respondents.changed for an import, with counts and no answer', async () => {
    // After the set-up's imports, whose stamps (one per commit) ran ahead of the stopped clock.
    w.clock.advance(CHANGE_WINDOW_MS);
    await importDocument(w.store, w.clock, {
      respondents: [
        respondent('r4', 10, { nama: 'Rahasia Sekali', menu: 'Soto' }),
        respondent('r1', 11, { nama: 'Tamu r1', menu: 'Soto' }),
        { id: 'r2', deleted: true },
      ].map((row) => ({ ...row, campaignId: 'nikah' })),
    });
    expect(await w.worker.runOnce()).toBe(2);
    const got = w.receiver.received.find((one) => one.body.includes('"respondents.changed"'));
    if (!got) throw new Error('nothing received');
    // An independent verifier: the specification's own package, over the raw body.
    const verified = new Webhook(w.secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual({
      type: 'respondents.changed',
      timestamp: new Date(w.clock.now()).toISOString(),
      data: {
        campaignId: 'nikah',
        changed: 2,
        removed: 1,
        since: new Date(Date.UTC(2026, 10, 1, 0, 10) - 1).toISOString(),
      },
    });
    expect(got.headers['webhook-id']).toMatch(/^msg_/);
    expect(w.receiver.events().find((event) => event.type === 'respondents.removed')?.data).toEqual(
      {
        campaignId: 'nikah',
        removedAt: new Date(w.clock.now()).toISOString(),
        ids: ['r2'],
      },
    );
    for (const one of w.receiver.received) {
      expect(one.body).not.toContain('Rahasia');
      expect(one.body).not.toContain('Soto');
    }
    // No second send of a delivered one.
    expect(await w.worker.runOnce()).toBe(0);
  });

  it('refuses a signature made with another secret, and one past its 5 minutes', async () => {
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const [got] = w.receiver.received;
    if (!got) throw new Error('nothing received');
    const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect(() =>
      new Webhook(other).verify(got.body, got.headers as Record<string, string>),
    ).toThrow();
    const stale = { ...(got.headers as Record<string, string>) };
    stale['webhook-timestamp'] = String(Math.floor(Date.now() / 1000) - 6 * 60);
    expect(() => new Webhook(w.secret).verify(got.body, stale)).toThrow();
    expect(JSON.parse(got.body)).toMatchObject({
      type: 'webhook.test',
      data: { endpointId: w.endpoint.id },
    });
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const rotated = await rotateSecret(w.settings, w.endpoint.id);
    await queueTestEvent(w, w.endpoint.id);
    await w.worker.runOnce();
    const [got] = w.receiver.received;
    if (!got) throw new Error('nothing received');
    const headers = got.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(w.secret).verify(got.body, headers)).toBeTruthy();
    expect(new Webhook(rotated.secret).verify(got.body, headers)).toBeTruthy();
    w.secret = rotated.secret;
  });

  it('sends the removed ids in chunks of at most 1,000 under 20 kB', async () => {
    const long = (n: number) => `${'p'.repeat(120)}-${String(n).padStart(5, '0')}`;
    const ids = Array.from({ length: 1_300 }, (_, n) =>
      n < 1_000 ? `bulk-${String(n).padStart(4, '0')}` : long(n),
    );
    await importDocument(w.store, w.clock, {
      respondents: ids.map((id, n) => ({ ...respondent(id, 100 + (n % 50)), campaignId: 'nikah' })),
    });
    await w.worker.runOnce();
    w.receiver.received.length = 0;
    w.clock.advance(1_000);
    await importDocument(w.store, w.clock, {
      respondents: ids.map((id) => ({ id, deleted: true })),
    });
    while ((await w.worker.runOnce()) > 0) {}
    const removed = w.receiver.events().filter((event) => event.type === 'respondents.removed');
    const sent = removed.flatMap((event) => event.data.ids as string[]);
    expect(sent.sort()).toEqual([...ids].sort());
    for (const event of removed) {
      expect((event.data.ids as string[]).length).toBeLessThanOrEqual(1_000);
      expect(event.data.removedAt).toBe(new Date(w.clock.now()).toISOString());
    }
    for (const got of w.receiver.received) expect(Buffer.byteLength(got.body)).toBeLessThan(20_000);
    expect(removed.length).toBeGreaterThanOrEqual(3);
    const changed = w.receiver.events().find((event) => event.type === 'respondents.changed');
    expect(changed?.data).toMatchObject({ campaignId: 'nikah', changed: 0, removed: 1_300 });
  });

  it('writes nothing to the outbox for an import that fails', async () => {
    const before = (await deliveriesOf(w.store)).length;
    await expect(
      importDocument(w.store, w.clock, {
        respondents: [
          { ...respondent('ok1', 1), campaignId: 'nikah' },
          { ...respondent('bad', 2), campaignId: 'no-such-campaign' },
        ],
      }),
    ).rejects.toThrow(/no-such-campaign/);
    expect(await deliveriesOf(w.store)).toHaveLength(before);
    expect(await w.worker.runOnce()).toBe(0);
  });

  it('reports an erasure, and tells nothing of campaigns outside the key', async () => {
    await eraseRespondents(w.store, w.clock, [{ campaignId: 'nikah', id: 'r3' }], 'ids');
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('x2', 5), campaignId: 'lain' }],
    });
    await w.worker.runOnce();
    expect(w.receiver.events().map((event) => [event.type, event.data.campaignId])).toEqual(
      expect.arrayContaining([
        ['respondents.changed', 'nikah'],
        ['respondents.removed', 'nikah'],
      ]),
    );
    expect(w.receiver.events().some((event) => event.data.campaignId === 'lain')).toBe(false);
  });

  it('tells of campaign changes, and of scope changes', async () => {
    await importDocument(w.store, w.clock, {
      campaigns: [
        {
          id: 'nikah',
          slug: 'nikah',
          title: 'Pernikahan Baru',
          eventDate: null,
          location: null,
          fields: [
            { key: 'nama', label: 'nama', type: 'TEXT' },
            { key: 'menu', label: 'menu', type: 'RADIO' },
          ],
        },
      ],
    });
    await w.worker.runOnce();
    expect(w.receiver.events()).toMatchObject([
      { type: 'campaign.updated', data: { campaignId: 'nikah', changed: ['title'] } },
    ]);
    w.receiver.received.length = 0;
    await replaceKeyScope(w.store, w.clock, w.key.id, [
      { campaignId: 'nikah', fields: ['menu'] },
      { campaignId: 'lain', fields: [] },
    ]);
    await w.worker.runOnce();
    expect(w.receiver.events()).toMatchObject([
      { type: 'campaign.added', data: { campaignId: 'lain' } },
    ]);
  });

  it('does not send an event about a campaign that left the key before delivery', async () => {
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('x3', 6), campaignId: 'lain' }],
    });
    await replaceKeyScope(w.store, w.clock, w.key.id, [{ campaignId: 'nikah', fields: ['menu'] }]);
    await w.worker.runOnce();
    expect(w.receiver.events()).toEqual([
      expect.objectContaining({
        type: 'campaign.removed',
        data: { campaignId: 'lain', reason: 'out_of_scope' },
      }),
    ]);
    const skipped = (await listDeliveries(w.settings, w.endpoint.id)).filter(
      (delivery) => delivery.state === 'skipped',
    );
    expect(skipped.map((delivery) => [delivery.event, delivery.campaignId])).toEqual([
      ['respondents.changed', 'lain'],
    ]);
  });

  it('tells of a key about to expire, once for 7 days and once for 1', async () => {
    const expiring = await createTestKey(w.store, w.clock, [{ campaignId: 'nikah', fields: [] }], {
      expiresAt: w.clock.now() + 6 * DAY,
    });
    await addEndpoint(w.settings, { keyId: expiring.id, url: `${w.receiver.url}/expiring` });
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(1);
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(0);
    w.clock.advance(5 * DAY + 1);
    expect(await noticeExpiringKeys(w.store.db, w.clock.now())).toBe(1);
    await w.worker.runOnce();
    const notices = w.receiver.events().filter((event) => event.type === 'key.expiring');
    expect(notices.map((event) => event.data.daysLeft).sort()).toEqual([1, 6]);
    expect(notices.map((event) => event.data.keyId)).toEqual([expiring.id, expiring.id]);
  });

  it('tells of a steady stream of commits about once a second per campaign, and of every removal', async () => {
    // What the test's own endpoint was told (others of this key hear the same).
    const told = (type: string) =>
      w.receiver.received
        .filter((got) => got.path === new URL(w.endpoint.url).pathname)
        .map((got) => JSON.parse(got.body))
        .filter((event) => event.type === type);
    const changed = () => told('respondents.changed');
    // After a quiet spell, with whatever earlier tests left waiting sent.
    w.clock.advance(2 * CHANGE_WINDOW_MS);
    await w.worker.runOnce();
    w.receiver.received.length = 0;
    // Ten commits 100 ms apart: the first is told at once, the other nine wait for the window.
    for (let n = 0; n < 10; n++) {
      await importDocument(w.store, w.clock, {
        respondents: [
          { ...respondent(`s${n}`, 20 + n), campaignId: 'nikah' },
          ...(n === 5 ? [{ id: 's0', deleted: true }] : []),
        ],
      });
      await w.worker.runOnce();
      w.clock.advance(100);
    }
    expect(changed().map((event) => event.data.changed)).toEqual([1]);
    // Removals are never held back, nor merged away.
    expect(told('respondents.removed')).toHaveLength(1);
    // Now the window's end: the waiting one goes.
    await w.worker.runOnce();
    expect(changed().map((event) => event.data)).toEqual([
      expect.objectContaining({ changed: 1, removed: 0 }),
      {
        campaignId: 'nikah',
        changed: 9,
        removed: 1,
        // The earliest of the nine: every row they wrote is after it.
        since: new Date(Date.UTC(2026, 10, 1, 0, 21) - 1).toISOString(),
      },
    ]);
    // Once that one is sent, the next commit waits for the window after it, in an event of its own.
    w.clock.advance(100);
    await importDocument(w.store, w.clock, {
      respondents: [{ ...respondent('s10', 40), campaignId: 'nikah' }],
    });
    await w.worker.runOnce();
    expect(changed()).toHaveLength(2);
    w.clock.advance(CHANGE_WINDOW_MS);
    await w.worker.runOnce();
    expect(changed().map((event) => event.data.changed)).toEqual([1, 9, 1]);
  });

  it('lets a holder send one test event per endpoint every 10 seconds', async () => {
    w.clock.advance(TEST_EVENT_INTERVAL_MS);
    await sendTestEvent(w.settings, w.endpoint.id);
    const again = sendTestEvent(w.settings, w.endpoint.id);
    await expect(again).rejects.toBeInstanceOf(TestEventTooSoon);
    await expect(again).rejects.toThrow('send another in 10 s');
    w.clock.advance(TEST_EVENT_INTERVAL_MS - 1_500);
    await expect(sendTestEvent(w.settings, w.endpoint.id)).rejects.toThrow('send another in 2 s');
    w.clock.advance(1_500);
    await sendTestEvent(w.settings, w.endpoint.id);
    await w.worker.runOnce();
    expect(w.receiver.received).toHaveLength(2);
  });

  it('sends nothing once the key is revoked', async () => {
    await queueTestEvent(w, w.endpoint.id);
    await revokeKey(w.store, w.clock, w.key.id);
    await w.worker.runOnce();
    expect(w.receiver.received).toHaveLength(0);
  });

  // Runs last: the tests above between them send an event of every type, each checked here.

  it('sends only bodies that match the published schema of their type, of every type', () => {
    const contract = eventContract();
    const typesSent = new Set(w.receiver.everything.map((got) => contract.check(got.body)));
    expect([...typesSent].sort()).toEqual([...EVENT_TYPES].sort());
    expect([...contract.types].sort()).toEqual([...EVENT_TYPES].sort());
  });
});
