import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDocument } from '../../../src/demo/demo-data.ts';
import { importDocument } from '../../../src/import/import.service.ts';
import { revokeKey } from '../../../src/keys/keys.service.ts';
import { KEY_AS_HEADER } from '../../../src/mcp/hosted-mcp.routes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTestKey } from '../../helpers/factories.ts';
import {
  call,
  connect,
  connectHosted,
  guestsOf,
  listen,
  postMcp,
  WEDDING,
} from '../../helpers/mcp-client.ts';

const ALLOWED_ORIGIN = 'https://agents.example.com';

describe('the hosted MCP endpoint', () => {
  let t: TestApp;
  let baseUrl: string;
  let endpoint: string;
  let key: { key: string; id: string };
  let hosted: Client;
  let wedding: Array<{ id: string; attendanceStatus: string; answers: Record<string, unknown> }>;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { mcpAllowedOrigins: [ALLOWED_ORIGIN] });
    baseUrl = await listen(t);
    endpoint = `${baseUrl}/developer/mcp`;
    const document = demoDocument();
    await importDocument(t.store, t.clock, document);
    wedding = (
      document.respondents as Array<(typeof wedding)[number] & { campaignId: string }>
    ).filter((row) => row.campaignId === WEDDING);
    key = await createTestKey(t.store, t.clock, [
      { campaignId: WEDDING, fields: ['nama', 'menu'] },
    ]);
    hosted = await connectHosted(endpoint, key.key);
  });
  afterAll(async () => {
    await hosted?.close();
    await t?.close();
  });

  const dataRequests = () =>
    t.logs.filter((line) => line.msg === 'data access' && line.keyId === key.id);

  it('offers the tools of hadir-mcp: the same names, descriptions and arguments', async () => {
    const local = await connect(baseUrl, key.key);
    try {
      const [mine, theirs] = await Promise.all([hosted.listTools(), local.listTools()]);
      expect(mine.tools.length).toBe(6);
      expect(mine.tools).toEqual(theirs.tools);
      expect(hosted.getServerVersion()).toEqual(local.getServerVersion());
    } finally {
      await local.close();
    }
  });

  it('declares what every tool answers, and answers it as checked structured content', async () => {
    const { tools } = await hosted.listTools();
    const ajv = new Ajv({ strict: false });
    const calls: Record<string, Record<string, unknown>> = {
      list_campaigns: {},
      get_summary: { campaignId: WEDDING },
      list_fields: { campaignId: WEDDING },
      list_respondents: { campaignId: WEDDING, limit: 3 },
      count_respondents: { campaignId: WEDDING, groupBy: 'menu' },
      list_removals: { campaignId: WEDDING },
    };
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(calls).sort());
    for (const tool of tools) {
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: true,
        idempotentHint: true,
        destructiveHint: false,
        openWorldHint: false,
      });
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // The SDK's client checks the answer against the declared schema as it takes it.
      const result = await hosted.callTool({ name: tool.name, arguments: calls[tool.name] });
      expect(result.isError ?? false, tool.name).toBe(false);
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(result.structuredContent, tool.name).toEqual(JSON.parse(text));
      // And a validator of another make agrees.
      const valid = ajv.validate(tool.outputSchema as object, result.structuredContent);
      expect(valid, `${tool.name}: ${ajv.errorsText()}`).toBe(true);
    }
    // count_respondents answers in two shapes: by attendance too.
    const byStatus = await hosted.callTool({
      name: 'count_respondents',
      arguments: { campaignId: WEDDING },
    });
    expect(byStatus.structuredContent).toMatchObject({ counts: { all: expect.any(Number) } });
  });

  it('answers "who among the confirmed guests is vegetarian?" in one call and one data request', async () => {
    await call(hosted, 'list_campaigns');
    const before = dataRequests().length;
    const question = {
      campaignId: WEDDING,
      attendanceStatus: 'YES',
      answers: { menu: { equals: ['Vegetarian'] } },
      fields: ['nama'],
    };
    const answer = await call(hosted, 'list_respondents', question);
    expect(dataRequests().length - before).toBe(1);
    const expected = wedding.filter(
      (row) => row.attendanceStatus === 'YES' && row.answers.menu === 'Vegetarian',
    );
    const body = answer.json();
    expect(body.total).toBe(expected.length);
    expect(
      guestsOf(body)
        .map((guest) => guest.id)
        .sort(),
    ).toEqual(expected.map((row) => row.id).sort());
    // The same answer, character for character, as hadir-mcp's.
    const local = await connect(baseUrl, key.key);
    try {
      expect((await call(local, 'list_respondents', question)).text).toBe(answer.text);
    } finally {
      await local.close();
    }
    const line = dataRequests().at(-1);
    expect(line).toMatchObject({ method: 'GET', campaignId: WEDDING });
  });

  it('keeps no session: each call stands alone, and GET and DELETE answer 405', async () => {
    const initialize = await postMcp(
      endpoint,
      {
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'curl', version: '1' },
        },
      },
      { authorization: `Bearer ${key.key}` },
    );
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('content-type')).toContain('application/json');
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    expect((await initialize.json()).result.protocolVersion).toBe('2025-06-18');
    for (const method of ['GET', 'DELETE']) {
      const refused = await fetch(endpoint, {
        method,
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
      expect((await refused.json()).error.code).toBe('method_not_allowed');
    }
  });

  it('refuses a missing or unknown key with 401 and WWW-Authenticate: Bearer', async () => {
    const post = (headers: Record<string, string>) =>
      postMcp(endpoint, { method: 'tools/list' }, headers);
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    // A person reads it in an agent host that may expect OAuth: it says to send the key instead.
    expect(await missing.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: `an API key is required: send Authorization: Bearer <key>. ${KEY_AS_HEADER}`,
      },
    });
    expect(KEY_AS_HEADER).toContain('"Authorization: Bearer <key>"');
    const unknown = await post({ authorization: `Bearer hadir_sk_${'0'.repeat(64)}` });
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error.message).toBe(`the API key is not known. ${KEY_AS_HEADER}`);
  });

  it('says whose mistake a call is: __proto__ refused by name, a wrong shape as invalid params', async () => {
    const send = async (params: string) => {
      const answer = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}`,
      });
      const text = await answer.text();
      expect(answer.status, `${params}: ${text}`).toBe(200);
      return JSON.parse(text) as {
        error?: { code: number; message: string };
        result?: { isError: boolean; content: Array<{ text: string }> };
      };
    };
    const proto = await send('{"name":"list_respondents","arguments":{"__proto__":{"x":1}}}');
    expect(proto.result?.isError).toBe(true);
    expect(proto.result?.content[0]?.text).toContain('list_respondents takes no "__proto__"');
    const question = await send(
      `{"name":"list_respondents","arguments":{"campaignId":"${WEDDING}","answers":{"__proto__":{"equals":["x"]}}}}`,
    );
    expect(question.result?.content[0]?.text).toContain('answers names no question "__proto__"');
    const elsewhere = await send('{"name":"list_campaigns","__proto__":{}}');
    expect(elsewhere.error).toEqual({
      code: -32602,
      message:
        'a key of params is named "__proto__", which names nothing here: give tools, arguments and questions by their names',
    });
    expect((await send('{"name":"list_respondents","arguments":"str"}')).error).toEqual({
      code: -32602,
      message:
        'list_respondents takes its arguments as an object, e.g. {"campaignId": "pernikahan-rina-bayu"}, not a string',
    });
    expect((await send('{"name":7}')).error?.message).toBe(
      'tools/call names its tool in params.name, a string, not a number',
    );
  });

  it('refuses a browser origin that is not configured with 403', async () => {
    const post = (origin: string) =>
      postMcp(endpoint, { method: 'ping' }, { authorization: `Bearer ${key.key}`, origin });
    const foreign = await post('https://evil.example');
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe('forbidden');
    expect((await post(ALLOWED_ORIGIN)).status).toBe(200);
  });

  it('refuses a revoked key at its next call', async () => {
    const other = await createTestKey(t.store, t.clock, [{ campaignId: WEDDING, fields: [] }]);
    const agent = await connectHosted(endpoint, other.key);
    try {
      expect(
        (await call(agent, 'get_summary', { campaignId: WEDDING })).answer.isError,
      ).toBeFalsy();
      await revokeKey(t.store, t.clock, other.id);
      await expect(agent.listTools()).rejects.toThrow(/the API key has been revoked/);
    } finally {
      await agent.close().catch(() => {});
    }
  });
});

describe('the hosted MCP endpoint and the rate limit', () => {
  it("spends the key's budget by the data requests its tools make, and says when it is spent", async () => {
    const t = await startTestApp('sqlite', { rateLimitPerMinute: 3 });
    try {
      const baseUrl = await listen(t);
      await importDocument(t.store, t.clock, demoDocument());
      const key = await createTestKey(t.store, t.clock, [
        { campaignId: WEDDING, fields: ['menu'] },
      ]);
      const agent = await connectHosted(`${baseUrl}/developer/mcp`, key.key);
      try {
        // Connecting and listing the tools spend nothing; the first summary spends two requests
        // (the summary, and the questions it labels), the next one (the questions are known).
        await agent.listTools();
        for (let n = 0; n < 2; n++) {
          const summary = await call(agent, 'get_summary', { campaignId: WEDDING });
          expect(summary.answer.isError, summary.text).toBeFalsy();
        }
        const lines = t.logs.filter((line) => line.msg === 'data access' && line.keyId === key.id);
        expect(lines.length).toBe(3);
        const spent = await call(agent, 'count_respondents', { campaignId: WEDDING });
        expect(spent.answer.isError).toBe(true);
        expect(spent.text).toContain("Hadir's rate limit for this key is used up for now");
      } finally {
        await agent.close();
      }
    } finally {
      await t.close();
    }
  });
});
