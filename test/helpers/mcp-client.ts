// hadir-mcp as the tests drive it: the SDK's own MCP client over stdio, a tool call, a guests
// table read back, a test app listening.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestApp } from './app.ts';

export const MCP_BIN = new URL('../../packages/mcp/dev/hadir-mcp', import.meta.url).pathname;
export const WEDDING = 'pernikahan-rina-bayu';

export type Text = { type: string; text: string };
export interface ToolAnswer {
  isError?: boolean;
  content: Text[];
}

/** The SDK's own MCP client, driving hadir-mcp over stdio with a key in its environment. */
export async function connect(baseUrl: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'hadir-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: MCP_BIN,
      env: { HADIR_BASE_URL: baseUrl, HADIR_API_KEY: apiKey },
      stderr: 'pipe',
    }),
  );
  return client;
}

/**
 * The SDK's own MCP client on the hosted endpoint, over Streamable HTTP, with the key as bearer
 * token, as an agent host configured with a URL and a header connects. `fetch` may send each
 * call elsewhere (another node).
 */
export async function connectHosted(
  url: string,
  apiKey: string,
  fetch?: typeof globalThis.fetch,
): Promise<Client> {
  const client = new Client({ name: 'hadir-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      ...(fetch ? { fetch } : {}),
    }),
  );
  return client;
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (progress: { message?: string }) => void,
): Promise<{ answer: ToolAnswer; text: string; json: () => Record<string, unknown> }> {
  const answer = (await client.callTool(
    { name, arguments: args },
    undefined,
    onprogress ? { onprogress, resetTimeoutOnProgress: true } : undefined,
  )) as ToolAnswer;
  const text = answer.content.map((part) => part.text).join('\n');
  return { answer, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** A guests table ({ columns, rows }) as one object per guest, keyed by column. */
export function guestsOf(
  body: Record<string, unknown>,
): Array<Record<string, unknown> & { id: string }> {
  const columns = body.columns as string[];
  return (body.rows as unknown[][]).map(
    (row) =>
      Object.fromEntries(columns.map((column, index) => [column, row[index]])) as Record<
        string,
        unknown
      > & { id: string },
  );
}

export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** One JSON-RPC message POSTed to the hosted endpoint as a plain HTTP client sends it. */
export function postMcp(
  url: string,
  message: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });
}
