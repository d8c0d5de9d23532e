import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/accounts/accounts.service.ts';
import { issueKey, revokeKey } from '../../../src/keys/keys.service.ts';
import type { TestApp } from '../../helpers/app.ts';
import { type Route, routesOf } from '../../helpers/app-routes.ts';
import { recordOf } from '../../helpers/disclosure-record.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { listen, postMcp } from '../../helpers/mcp-client.ts';
import { pageBrowser } from '../../helpers/page-browser.ts';
import { PORTAL_PASSWORD, portalClient } from '../../helpers/portal-client.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

/**
 * One set of cases (no key, a wrong key, a revoked key, a campaign the key does not read, a field
 * it may not read) over every route that reads data, found from what the app registers rather
 * than listed: every data-API route that a request without a key cannot read, every page route
 * that names a campaign (the downloads), and every tool of the hosted MCP endpoint. A door added
 * later is in it as soon as it is registered.
 */

/** What the key may read: campaign `c`, field `menu`. */
const READABLE = ['guest-c-1', 'guest-c-2', 'Sate-Lilit'];
/** What it may not: campaign `c`'s hidden field (key, label, answers), and everything of `other`. */
const HIDDEN_FIELD = ['secret_q9', 'Secret label Z9', 'HIDDEN-ANSWER'];
const OTHER_CAMPAIGN = ['other-k7', 'Other title K7', 'guest-other-1', 'OTHER-ANSWER'];
/** What a refusal may say: the campaign the caller named itself. */
const ASKED = 'other-k7';

interface Credential {
  /** The data API's and the MCP endpoint's bearer key; the pages' key id. */
  key?: string;
  keyId?: string;
}

interface Answer {
  status: number;
  body: string;
  /** An MCP tool answered with an error result (its HTTP status is 200). */
  toolError?: boolean;
}

/** A door the cases run over: its routes, and how each is called for a campaign. */
interface Door {
  name: string;
  call(credential: Credential, campaignId: string): Promise<Answer>;
  /** Whether a campaign is named in the call (a list of campaigns names none). */
  namesCampaign: boolean;
}

describe.each(ENGINES)('every data route keeps the key policy, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let close: () => Promise<void>;
  let doors: Door[];
  const keys = {} as Record<'reader' | 'revoked' | 'stranger', { key: string; id: string }>;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine));
    await seedCampaign(t.store, t.clock, {
      id: 'c',
      fields: [
        { key: 'menu', type: 'RADIO' },
        { key: 'secret_q9', type: 'TEXT', label: 'Secret label Z9' },
      ],
      respondents: ['guest-c-1', 'guest-c-2'].map((id, index) => ({
        id,
        submittedAt: `2026-11-0${index + 1}T00:00:00Z`,
        answers: { menu: 'Sate-Lilit', secret_q9: `HIDDEN-ANSWER ${index}` },
      })),
    });
    await seedCampaign(t.store, t.clock, {
      id: 'other-k7',
      title: 'Other title K7',
      fields: [{ key: 'menu', type: 'TEXT' }],
      respondents: [
        {
          id: 'guest-other-1',
          submittedAt: '2026-11-01T00:00:00Z',
          answers: { menu: 'OTHER-ANSWER' },
        },
      ],
    });
    for (const email of ['holder@example.test', 'stranger@example.test']) {
      await createAccount(t.store, t.clock, {
        email,
        password: PORTAL_PASSWORD,
        mustChangePassword: false,
      });
    }
    const issue = (accountEmail: string, campaignId: string, fields: string[]) =>
      issueKey(t.store, t.clock, { accountEmail, scopes: [{ campaignId, fields }] });
    keys.reader = await issue('holder@example.test', 'c', ['menu']);
    keys.revoked = await issue('holder@example.test', 'c', ['menu']);
    await revokeKey(t.store, t.clock, keys.revoked.id);
    keys.stranger = await issue('stranger@example.test', 'other-k7', ['menu']);

    const session = (await portalClient(t, smtp).signIn('holder@example.test')).session.token;
    const browser = pageBrowser(t.app);
    browser.jar.set('hadir_session', session);
    await browser.get('/developer/portal/keys');
    const cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');

    await t.app.ready();
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
    const mcpUrl = `${await listen(t)}/developer/mcp`;
    doors = [
      ...(await keyRoutes(routes)),
      ...pageRoutes(routes, cookie),
      ...(await mcpTools(mcpUrl)),
    ];
  });
  afterAll(async () => {
    await close?.();
  });

  const inject = async (url: string, headers: Record<string, string>): Promise<Answer> => {
    const answer = await t.app.inject({ method: 'GET', url, headers, remoteAddress: '127.0.0.1' });
    return { status: answer.statusCode, body: answer.rawPayload.toString('latin1') };
  };

  /** The data API's routes that need a key: those a request without one cannot read. */
  async function keyRoutes(routes: Route[]): Promise<Door[]> {
    const found: Door[] = [];
    for (const route of routes) {
      if (route.method !== 'GET' || !route.path.startsWith('/developer/v1/')) continue;
      const url = (campaignId: string) => route.path.replace(':id', campaignId);
      // Documentation (the reference, the OpenAPI document, llms.txt) is for anyone.
      if ((await inject(url('c'), {})).status === 200) continue;
      found.push({
        name: `GET ${route.path}`,
        namesCampaign: route.path.includes(':id'),
        call: ({ key }, campaignId) =>
          inject(url(campaignId), key ? { authorization: `Bearer ${key}` } : {}),
      });
    }
    return found;
  }

  /** The pages that hand over a campaign's guests: every page route that names a campaign. */
  function pageRoutes(routes: Route[], cookie: string): Door[] {
    return routes
      .filter((route) => route.method === 'GET' && route.path.includes(':campaignId'))
      .map((route) => ({
        name: `GET ${route.path}`,
        namesCampaign: true,
        call: ({ keyId }, campaignId) =>
          inject(
            route.path.replace(':id', keyId ?? keys.reader.id).replace(':campaignId', campaignId),
            keyId ? { cookie } : {},
          ),
      }));
  }

  /** Every tool the hosted MCP endpoint lists, called with a campaign where it takes one. */
  async function mcpTools(url: string): Promise<Door[]> {
    const listed = (await (
      await postMcp(url, { method: 'tools/list' }, { authorization: `Bearer ${keys.reader.key}` })
    ).json()) as {
      result: {
        tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }>;
      };
    };
    return listed.result.tools.map((tool) => {
      const namesCampaign = 'campaignId' in (tool.inputSchema.properties ?? {});
      return {
        name: `MCP ${tool.name}`,
        namesCampaign,
        async call({ key }, campaignId) {
          const answer = await postMcp(
            url,
            {
              method: 'tools/call',
              params: { name: tool.name, arguments: namesCampaign ? { campaignId } : {} },
            },
            key ? { authorization: `Bearer ${key}` } : {},
          );
          const body = await answer.text();
          const toolError = answer.status === 200 && /"isError":\s*true/.test(body);
          return { status: answer.status, body, toolError };
        },
      };
    });
  }

  /** A refusal: a 4xx (or an MCP error result) that names nothing and records nothing. */
  async function expectRefused(door: Door, credential: Credential, campaignId: string) {
    const before = (await recordOf(t.store)).length;
    const answer = await door.call(credential, campaignId);
    const refused = answer.toolError || (answer.status >= 400 && answer.status < 500);
    // A page refuses a visitor with no session by sending them to sign in.
    const toSignIn = answer.status === 303 || answer.status === 302;
    expect(refused || toSignIn, `${door.name}: ${answer.status} ${answer.body.slice(0, 200)}`).toBe(
      true,
    );
    for (const marker of [...READABLE, ...HIDDEN_FIELD, ...OTHER_CAMPAIGN]) {
      if (marker === campaignId && campaignId === ASKED) continue;
      expect(answer.body, `${door.name} names ${marker}`).not.toContain(marker);
    }
    expect((await recordOf(t.store)).length, `${door.name} recorded a line`).toBe(before);
    return answer;
  }

  it('finds the doors: data API routes, downloads and MCP tools', () => {
    const names = doors.map((door) => door.name);
    expect(names).toContain('GET /developer/v1/campaigns/:id/respondents');
    expect(names).toContain('GET /developer/v1/campaigns');
    expect(names.some((name) => name.endsWith('guest-list.csv'))).toBe(true);
    expect(names).toContain('MCP list_respondents');
    expect(names.length).toBeGreaterThanOrEqual(14);
  });

  it('answers the key what it may read, and nothing of a field it may not', async () => {
    let seen = 0;
    for (const door of doors) {
      const answer = await door.call({ key: keys.reader.key, keyId: keys.reader.id }, 'c');
      expect(answer.status, door.name).toBe(200);
      expect(answer.toolError ?? false, door.name).toBe(false);
      for (const marker of [...HIDDEN_FIELD, ...OTHER_CAMPAIGN]) {
        expect(answer.body, `${door.name} names ${marker}`).not.toContain(marker);
      }
      if (READABLE.some((marker) => answer.body.includes(marker))) seen += 1;
    }
    // The cases are not vacuous: the doors that hand over guests did hand them over.
    expect(seen).toBeGreaterThanOrEqual(5);
  });

  it('refuses a request without a key', async () => {
    for (const door of doors) {
      const answer = await expectRefused(door, {}, 'c');
      if (!door.name.startsWith('GET /developer/portal'))
        expect(answer.status, door.name).toBe(401);
    }
  });

  it('refuses a wrong key', async () => {
    for (const door of doors) {
      await expectRefused(door, { key: `hadir_sk_${'0'.repeat(64)}`, keyId: 'key_unknown' }, 'c');
    }
  });

  it('refuses a revoked key', async () => {
    for (const door of doors) {
      await expectRefused(door, { key: keys.revoked.key, keyId: keys.revoked.id }, 'c');
    }
  });

  it('refuses another account’s key on the pages', async () => {
    for (const door of doors.filter((door) => door.name.startsWith('GET /developer/portal'))) {
      await expectRefused(door, { keyId: keys.stranger.id }, 'other-k7');
    }
  });

  it('refuses a campaign the key does not read, and lists none', async () => {
    for (const door of doors) {
      const credential = { key: keys.reader.key, keyId: keys.reader.id };
      if (door.namesCampaign) {
        await expectRefused(door, credential, 'other-k7');
        continue;
      }
      const answer = await door.call(credential, 'other-k7');
      for (const marker of OTHER_CAMPAIGN) {
        expect(answer.body, `${door.name} names ${marker}`).not.toContain(marker);
      }
    }
  });
});
