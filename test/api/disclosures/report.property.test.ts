import { createHadirMcpServer } from '@hadir/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { reportOnRespondent } from '../../../src/disclosures/respondent-report.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { issueKey } from '../../../src/keys/keys.service.ts';
import { addEndpoint } from '../../../src/notifications/endpoints.service.ts';
import { eraseRespondents } from '../../../src/removals/erasure.service.ts';
import type { TestApp } from '../../helpers/app.ts';
import { recordingProxy, rowsOfCsv, type Seen } from '../../helpers/disclosure-proxy.ts';
import { exportWorld } from '../../helpers/export-world.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { listen } from '../../helpers/mcp-client.ts';
import { localDeliveryWorker, SEAL } from '../../helpers/notification-world.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { TestReceiver } from '../../helpers/receiver.ts';
import { startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

// Drives random reads through every door (two accounts, three keys with different allow-lists,
// some reads filtered), interleaved with edits, new rows, deletions and erasures, while a
// recording proxy (and the bucket, and the notification receiver) notes what each key actually
// received. For every respondent, `hadir disclosures --respondent` must equal what was seen:
// the same recipients, doors, counts, first and last times, fields and removal reach.

const op = fc.oneof(
  fc.record({
    kind: fc.constant('page' as const),
    key: fc.nat(2),
    limit: fc.integer({ min: 1, max: 4 }),
    filter: fc.constantFrom('', 'answers[menu]=Sate', 'attendanceStatus=YES'),
  }),
  fc.record({ kind: fc.constant('changes' as const), key: fc.nat(2) }),
  fc.record({ kind: fc.constant('removals' as const), key: fc.nat(2) }),
  fc.record({
    kind: fc.constant('hosted' as const),
    key: fc.nat(2),
    tool: fc.constantFrom('list_respondents', 'list_removals'),
  }),
  fc.record({ kind: fc.constant('local' as const), key: fc.nat(2) }),
  fc.record({ kind: fc.constant('download' as const), key: fc.nat(2) }),
  fc.record({ kind: fc.constant('delivery' as const), key: fc.constantFrom(1, 2) }),
  fc.record({ kind: fc.constant('notify' as const) }),
  fc.record({
    kind: fc.constant('edit' as const),
    pick: fc.nat(20),
    menu: fc.constantFrom('Sate', 'Soto'),
  }),
  fc.record({ kind: fc.constant('add' as const), menu: fc.constantFrom('Sate', 'Soto') }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant('erase' as const), pick: fc.nat(20) }),
);

describe.each(ENGINES)('the disclosure report against what keys received, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let close: () => Promise<void>;
  let s3: TestS3;
  let receiver: TestReceiver;
  let proxy: { url: string; close(): Promise<void> };
  const seen: Seen[] = [];
  const keyOfBearer = new Map<string, string>();
  const cookies: Record<'a' | 'b', string> = { a: '', b: '' };
  let run = 0;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
    s3 = await startS3Server(['mirror']);
    receiver = await TestReceiver.start();
    proxy = await recordingProxy(
      await listen(t),
      (bearer) => keyOfBearer.get(bearer),
      () => t.clock.now(),
      seen,
    );
    for (const holder of ['a', 'b'] as const) {
      const email = `${holder}-${engine}@property.test`;
      await createAccount(t.store, t.clock, {
        email,
        password: PORTAL_PASSWORD,
        organisation: `Mitra ${holder.toUpperCase()}`,
        mustChangePassword: false,
      });
      const session = (await portalClient(t, smtp).signIn(email)).session.token;
      cookies[holder] = `hadir_session=${session}`;
    }
  });
  afterAll(async () => {
    await proxy?.close();
    await receiver?.close();
    await s3?.close();
    await close?.();
  });

  it('names exactly the recipients, doors, fields, times, counts and removal reach seen', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 8, maxLength: 24 }), async (ops) => {
        run++;
        seen.length = 0;
        const campaignId = `p${run}`;
        const ids: string[] = [];
        const live = new Set<string>();
        const departed = new Map<string, number>();
        let next = 0;
        const respondent = (menu: string) => {
          const id = `${campaignId}-r${next++}`;
          ids.push(id);
          live.add(id);
          return {
            id,
            submittedAt: new Date(t.clock.now()).toISOString(),
            answers: { nama: `Tamu ${id}`, menu, ...(next % 2 ? { catatan: 'tanpa kacang' } : {}) },
          };
        };
        await seedCampaign(t.store, t.clock, {
          id: campaignId,
          fields: [
            { key: 'nama', type: 'TEXT' },
            { key: 'menu', type: 'RADIO' },
            { key: 'catatan', type: 'TEXT' },
          ],
          respondents: [
            respondent('Sate'),
            respondent('Soto'),
            respondent('Sate'),
            respondent('Soto'),
          ],
        });
        // Three keys: two of one account with different allow-lists, one of another.
        const allowLists = [['nama', 'menu'], ['menu'], ['nama', 'catatan']];
        const holders = ['a', 'a', 'b'] as const;
        const keys = [];
        for (const [index, fields] of allowLists.entries()) {
          const holder = holders[index] as 'a' | 'b';
          const issued = await issueKey(t.store, t.clock, {
            accountEmail: `${holder}-${engine}@property.test`,
            scopes: [{ campaignId, fields }],
          });
          keyOfBearer.set(issued.key, issued.id);
          keys.push({ ...issued, holder, fields });
        }
        const endpointSettings = {
          store: t.store,
          clock: t.clock,
          sealKey: SEAL,
          allowPrivateNetworks: true,
          actor: 'operator',
        };
        for (const key of keys) {
          await addEndpoint(endpointSettings, { keyId: key.id, url: `${receiver.url}/${key.id}` });
        }
        const world = exportWorld(t.store, t.clock, s3);
        const exportsOf = new Map<number, string>();
        for (const index of [1, 2]) {
          const added = await world.add({
            keyId: (keys[index] as { id: string }).id,
            to: `s3://mirror/${campaignId}-${index}`,
            schedule: { every: '1h' },
            formats: ['csv'],
          });
          exportsOf.set(index, added.id);
        }
        const notifier = localDeliveryWorker(t.store, t.clock);
        // Notifications of the set-up are not the property's.
        await notifier.runOnce();
        receiver.received.length = 0;
        const pick = (n: number) => [...live][n % Math.max(live.size, 1)];
        /** When each key's bucket got a run, whatever it held (an empty file is a run too). */
        const runs = new Map<string, number[]>();

        for (const step of ops) {
          t.clock.advance(1_000);
          const at = t.clock.now();
          const key = 'key' in step ? (keys[step.key] as (typeof keys)[number]) : undefined;
          const bearer: Record<string, string> = key ? { authorization: `Bearer ${key.key}` } : {};
          const base = `${proxy.url}/developer/v1/campaigns/${campaignId}`;
          switch (step.kind) {
            case 'page': {
              const query = `limit=${step.limit}${step.filter ? `&${step.filter}` : ''}`;
              let url: string | undefined = `${base}/respondents?${query}`;
              while (url) {
                const answer = await fetch(url, { headers: bearer });
                // A filter on a question outside the key's allow-list is refused, and hands nothing.
                if (answer.status === 400 && step.filter) break;
                expect(answer.status).toBe(200);
                const page = (await answer.json()) as any;
                url = page.meta.nextCursor
                  ? `${base}/respondents?cursor=${page.meta.nextCursor}`
                  : undefined;
              }
              break;
            }
            case 'changes':
            case 'removals': {
              let url: string | undefined = `${base}/${step.kind}?limit=3`;
              while (url) {
                const answer = await fetch(url, { headers: bearer });
                expect(answer.status).toBe(200);
                const page = (await answer.json()) as any;
                url = page.meta.nextCursor
                  ? `${base}/${step.kind}?cursor=${page.meta.nextCursor}`
                  : undefined;
              }
              break;
            }
            case 'hosted': {
              const answer = await fetch(`${proxy.url}/developer/mcp`, {
                method: 'POST',
                headers: {
                  ...bearer,
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                },
                body: JSON.stringify({
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: { name: step.tool, arguments: { campaignId } },
                }),
              });
              expect(answer.status).toBe(200);
              break;
            }
            case 'local': {
              const server = createHadirMcpServer({
                baseUrl: proxy.url,
                apiKey: (key as { key: string }).key,
              });
              const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
              const client = new Client({ name: 'property', version: '1.0.0' });
              await server.connect(serverSide);
              await client.connect(clientSide);
              try {
                await client.callTool({ name: 'list_respondents', arguments: { campaignId } });
              } finally {
                await client.close();
                await server.close();
              }
              break;
            }
            case 'download': {
              const holder = (key as { holder: 'a' | 'b' }).holder;
              const answer = await fetch(
                `${proxy.url}/developer/portal/keys/${key?.id}/campaigns/${campaignId}/guest-list.csv`,
                { headers: { cookie: cookies[holder] } },
              );
              expect(answer.status).toBe(200);
              await answer.arrayBuffer();
              break;
            }
            case 'delivery': {
              const result = await world.worker().runNow(exportsOf.get(step.key) as string);
              runs.set(key?.id as string, [...(runs.get(key?.id as string) ?? []), at]);
              for (const file of result.manifest.files) {
                const object = await s3.read(
                  'mirror',
                  `${campaignId}-${step.key}/${result.manifest.run}/${file.path}`,
                );
                for (const row of rowsOfCsv(object.toString('utf8'))) {
                  seen.push({
                    keyId: key?.id as string,
                    door: 'delivery',
                    at,
                    id: row.id,
                    row: row.fields,
                  });
                }
              }
              break;
            }
            case 'notify': {
              receiver.received.length = 0;
              await notifier.runOnce();
              for (const got of receiver.received) {
                const event = JSON.parse(got.body);
                if (event.type !== 'respondents.removed') continue;
                const keyId = got.path.split('/').at(-1) as string;
                for (const id of event.data.ids as string[]) {
                  seen.push({ keyId, door: 'notification', at, id });
                }
              }
              break;
            }
            case 'edit': {
              const id = pick(step.pick);
              if (!id) break;
              await importDocument(t.store, t.clock, {
                respondents: [
                  {
                    id,
                    campaignId,
                    submittedAt: new Date(at).toISOString(),
                    attendanceStatus: 'YES',
                    answers: { nama: `Tamu ${id} (diubah)`, menu: step.menu },
                  },
                ],
              });
              break;
            }
            case 'add': {
              await importDocument(t.store, t.clock, {
                respondents: [{ ...respondent(step.menu), campaignId, attendanceStatus: 'YES' }],
              });
              break;
            }
            case 'delete':
            case 'erase': {
              const id = pick(step.pick);
              if (!id) break;
              if (step.kind === 'delete') {
                await importDocument(t.store, t.clock, { respondents: [{ id, deleted: true }] });
              } else {
                await eraseRespondents(t.store, t.clock, [{ campaignId, id }], 'ids');
              }
              live.delete(id);
              departed.set(id, at);
              break;
            }
          }
        }

        for (const id of ids) {
          const report = await reportOnRespondent(t.store, id);
          expect(report.recipients.map((r) => r.keyId).sort(), id).toEqual(
            [...new Set(seen.filter((s) => s.id === id).map((s) => s.keyId))].sort(),
          );
          for (const recipient of report.recipients) {
            const key = keys.find((k) => k.id === recipient.keyId) as (typeof keys)[number];
            const mine = seen.filter((s) => s.id === id && s.keyId === key.id);
            const doors = [...new Set(mine.map((s) => s.door))];
            expect(recipient.doors.map((d) => d.door).sort(), `${id} ${key.id}`).toEqual(
              doors.sort(),
            );
            for (const use of recipient.doors) {
              const times = mine.filter((s) => s.door === use.door).map((s) => s.at);
              expect([use.count, use.first, use.last], `${id} ${use.door}`).toEqual([
                times.length,
                Math.min(...times),
                Math.max(...times),
              ]);
              const rows = mine.filter((s) => s.door === use.door && s.row);
              // The fields in force went with each row; the answers it had are among them.
              expect(use.fields.sort(), `${id} ${use.door}`).toEqual(
                rows.length > 0 ? [...key.fields].sort() : [],
              );
              for (const row of rows)
                for (const field of row.row ?? []) expect(key.fields).toContain(field);
            }
            const left = departed.get(id);
            if (left === undefined) {
              expect(recipient.removalReached).toBeUndefined();
              continue;
            }
            const named = mine
              .filter((s) => !s.row && s.at >= left && s.door !== 'api' && s.door !== 'download')
              .map((s) => ({ door: s.door, at: s.at }));
            const delivered = mine.some((s) => s.door === 'delivery' && s.row);
            const nextRun = delivered
              ? (runs.get(key.id) ?? []).find((at) => at >= left)
              : undefined;
            const reaches = [
              ...named,
              ...(nextRun !== undefined ? [{ door: 'delivery' as const, at: nextRun }] : []),
            ].sort((a, b) => a.at - b.at);
            expect(recipient.removalReached?.reached, `${id} reach`).toEqual(reaches[0]);
            expect(recipient.removalReached?.filesTaken).toEqual(
              mine.filter((s) => s.door === 'download' && s.row).map((s) => s.at),
            );
          }
        }
      }),
      { numRuns: 4 },
    );
  }, 240_000);
});
