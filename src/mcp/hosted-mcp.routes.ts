import type { CampaignQuestions } from '@hadir/mcp';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.ts';
import type { Store } from '../db/store.ts';
import type { DisclosureRecorder } from '../disclosures/disclosure-log.ts';
import { idListOf } from '../disclosures/id-list.ts';
import {
  RELAYED_READ_HEADER,
  type RelayedCall,
  type RelayedReads,
} from '../disclosures/relayed-reads.ts';
import { ApiError } from '../errors.ts';
import { keyRejection } from '../keys/key-auth.ts';
import { bearerToken } from '../keys/key-format.ts';
import { verifyKey } from '../keys/keys.service.ts';

export const MCP_PATH = '/developer/mcp';

/** The largest JSON-RPC message taken: a tool call's arguments are small. */
const MAX_BODY_BYTES = 64 * 1024;

/** Keys whose questions a node remembers (see CampaignQuestions). */
const MOST_KEYS = 1_000;

/**
 * The MCP SDK and the tools, loaded at the endpoint's first call: a server that no agent calls
 * does not carry them (some 20 MB of modules).
 */
let mcpModules:
  | Promise<
      [
        typeof import('@hadir/mcp'),
        typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      ]
    >
  | undefined;
function loadMcp() {
  mcpModules ??= Promise.all([
    import('@hadir/mcp'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]);
  return mcpModules;
}

export interface HostedMcpDeps {
  store: Store;
  clock: Clock;
  /** Where each tool answer that hands respondents over is recorded before it is sent. */
  disclosures: DisclosureRecorder;
  /** How the tools' data requests in this process name their call (see RelayedReads). */
  relayedReads: RelayedReads;
  /** Browser origins that may call the endpoint (MCP_ALLOWED_ORIGINS); none by default. */
  allowedOrigins: readonly string[];
}

/** How a person gives an MCP client the key: there is no OAuth sign-in to this endpoint. */
export const KEY_AS_HEADER =
  'This MCP endpoint takes your Hadir API key (hadir_sk_…) as a header, not an OAuth sign-in: add the header "Authorization: Bearer <key>" to this server in your MCP client, e.g. claude mcp add --transport http hadir <this URL> --header "Authorization: Bearer <key>"';

/**
 * The hosted MCP endpoint, `POST /developer/mcp`: Streamable HTTP without sessions, so that any
 * node answers any call of a conversation, and JSON answers. It serves hadir-mcp's tools, defined
 * once in @hadir/mcp, with the caller's API key as bearer token (the data interface has no OAuth
 * flow). Each tool reads through the data API's own door in this process, so scope, allow-list,
 * rate limit, usage and the access log apply to its data requests as to any client's; the
 * endpoint itself spends nothing of the key's budget.
 */
export function hostedMcpRoutes(deps: HostedMcpDeps): FastifyPluginAsync {
  const allowedOrigins = new Set(deps.allowedOrigins);
  const questionsOfKey = new LRUCache<string, CampaignQuestions>({ max: MOST_KEYS });

  return async (app) => {
    // The tools refuse a question or argument named "__proto__" by its name; the default parser
    // would refuse the whole body as not JSON first. JSON.parse keeps it as a plain key, and no
    // message reaches the tools with one anywhere else (strayProto).
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch (error) {
        done(
          new ApiError(
            'invalid_parameter',
            `the body is not valid JSON: ${(error as Error).message}`,
          ),
          undefined,
        );
      }
    });
    // JSON-RPC, which an OpenAPI description cannot show: described in the guide instead.
    app.post(
      MCP_PATH,
      { schema: { hide: true }, bodyLimit: MAX_BODY_BYTES },
      async (request, reply) => {
        // The MCP specification: a server must check Origin, or a web page could reach it through
        // a browser (DNS rebinding). Agents send none; a browser origin must be configured.
        const origin = request.headers.origin;
        if (origin !== undefined && !allowedOrigins.has(origin)) {
          throw new ApiError(
            'forbidden',
            `origin ${origin} may not use the MCP endpoint: the operator lists the browser origins that may (MCP_ALLOWED_ORIGINS)`,
          );
        }
        const stray = strayProto(request.body);
        if (stray !== undefined) {
          return reply.code(200).send({
            jsonrpc: '2.0',
            id: (request.body as { id?: unknown })?.id ?? null,
            error: {
              code: -32602,
              message: `${stray} is named "__proto__", which names nothing here: give tools, arguments and questions by their names`,
            },
          });
        }
        const bearer = bearerToken(request.headers.authorization);
        const verification = await verifyKey(deps.store, { bearer }, deps.clock.now());
        if (verification.kind !== 'valid') {
          // An agent host shows this to a person, who may expect OAuth: say what to send instead.
          throw new ApiError('unauthorized', `${keyRejection(verification)}. ${KEY_AS_HEADER}`, {
            'www-authenticate': 'Bearer realm="hadir"',
          });
        }
        const [mcp, { WebStandardStreamableHTTPServerTransport }] = await loadMcp();
        const keyId = verification.key.id;
        let questions = questionsOfKey.get(keyId);
        if (!questions) {
          questions = new mcp.CampaignQuestions(() => deps.clock.now());
          questionsOfKey.set(keyId, questions);
        }
        const { key } = verification;
        const call = deps.relayedReads.open();
        const handed: Array<{ campaignId: string; rowIds: string[]; removalIds: string[] }> = [];
        const server = mcp.createHadirMcpServer(
          { baseUrl: 'http://hadir.internal', apiKey: bearer as string },
          {
            // A 429 is told to the agent at once: an HTTP call is not held open for a minute.
            fetch: dataApiThrough(app, request, call),
            questions,
            rateLimitWaits: 0,
            onHandedOver: (campaignId, respondents) => handed.push({ campaignId, ...respondents }),
          },
        );
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        try {
          await server.connect(transport);
          const answer = await transport.handleRequest(webRequestOf(request), {
            parsedBody: request.body,
          });
          // What the tools' answers hand over is in the record before they are sent.
          for (const { campaignId, rowIds, removalIds } of handed) {
            if (rowIds.length === 0 && removalIds.length === 0) continue;
            const fields = call.fieldsOf(campaignId);
            if (!fields) throw new Error('a tool handed respondents over that it never read');
            await deps.disclosures.record({
              at: deps.clock.now(),
              recipient: { keyId: key.id, lineageId: key.lineageId, accountId: key.accountId },
              door: 'mcp',
              campaignId,
              fields: rowIds.length > 0 ? fields : [],
              rowIds: idListOf(rowIds),
              removalIds: idListOf(removalIds),
            });
          }
          return await sendAnswer(reply, answer);
        } finally {
          call.close();
          await server.close();
        }
      },
    );

    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: MCP_PATH,
        schema: { hide: true },
        handler: async () => {
          throw new ApiError(
            'method_not_allowed',
            `${method} ${MCP_PATH} is not offered: this endpoint keeps no session and opens no stream; send each JSON-RPC message with POST`,
            { allow: 'POST' },
          );
        },
      });
    }
  };
}

/** Where the tools refuse `__proto__` themselves: among a call's arguments, and its answers filter. */
const PROTO_REFUSED_BY_TOOLS = new Set(['params.arguments', 'params.arguments.answers']);

/** The first place a message names `__proto__` that no tool refuses by name, if any. */
function strayProto(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Object.hasOwn(value, '__proto__') && !PROTO_REFUSED_BY_TOOLS.has(path)) {
    return path === '' ? 'a key of the message' : `a key of ${path}`;
  }
  for (const [key, inner] of Object.entries(value)) {
    const found = strayProto(inner, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A fetch that asks the data API of this app, in process, as the calling client would: its
 * address and the proxy's forwarding headers, so the door sees the same client.
 */
function dataApiThrough(
  app: FastifyInstance,
  caller: FastifyRequest,
  call: RelayedCall,
): typeof fetch {
  const forwarded = Object.fromEntries(
    ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']
      .map((name) => [name, caller.headers[name]])
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const answer = await app.inject({
      method: 'GET',
      url: `${url.pathname}${url.search}`,
      headers: {
        ...forwarded,
        ...(init?.headers as Record<string, string>),
        [RELAYED_READ_HEADER]: call.token,
      },
      remoteAddress: caller.raw.socket.remoteAddress ?? caller.ip,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) headers.set(name, String(value));
    }
    const empty = answer.statusCode === 204 || answer.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(answer.rawPayload), {
      status: answer.statusCode,
      headers,
    });
  };
}

/** The request as the MCP SDK's web-standard transport reads it; its body is already parsed. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, String(value));
  }
  return new Request(`http://${request.host}${request.url}`, { method: 'POST', headers });
}

async function sendAnswer(reply: FastifyReply, answer: Response) {
  reply.code(answer.status);
  answer.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const text = await answer.text();
  return text === '' ? reply.send() : reply.send(text);
}
