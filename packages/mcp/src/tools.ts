import type { HadirClient } from '@hadir/client';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { failure } from './answers.ts';
import type { CampaignQuestions } from './campaign-questions.ts';
import { getSummary, listCampaigns, listFields } from './campaign-tools.ts';
import { countRespondents, listRemovals, listRespondents } from './guest-tools.ts';
import { problemInWords } from './problems.ts';
import type { HandedOver, ToolDefinition } from './tool-kit.ts';

/** Every tool, in the order tools/list gives them. */
const TOOLS = [
  listCampaigns,
  getSummary,
  listFields,
  listRespondents,
  listRemovals,
  countRespondents,
] as const;

/** A client for one tool call: its rate-limit waits are told to that call's caller as progress. */
export type ClientForCall = (progress: (message: string) => void) => HadirClient;

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** The words a tool refuses unknown arguments in. */
function refusal(tool: string, unknown: readonly string[], known: readonly string[]): string {
  return `${tool} takes no ${unknown.map((key) => `"${key}"`).join(', ')}: its arguments are ${known.join(', ') || 'none'}`;
}

/** Says a tool's refusal of an argument it does not know. */
export type ArgumentRefusal = (tool: string, argument: string) => string;

/**
 * The read-only tools, each a client of the public data API through the SDK: every request is a
 * GET with the holder's key, so the key's scope, allow-list, rate limit and access log apply as
 * to any client. A failure is a tool error in words, never a stack.
 */
export function registerTools(
  server: McpServer,
  clientFor: ClientForCall,
  questions: CampaignQuestions,
  handedOver: (campaignId: string, handed: HandedOver) => void = () => {},
): ArgumentRefusal {
  const argumentsOf = new Map<string, readonly string[]>();
  const tool = ({ name, title, description, inputSchema, outputSchema, run }: ToolDefinition) => {
    // An argument the tool does not know is refused, naming those it does: ignored, it would
    // answer another question than the one asked.
    const known = Object.keys(inputSchema);
    argumentsOf.set(name, known);
    const strict = z.strictObject(inputSchema, {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? refusal(name, issue.keys, known) : undefined,
    });
    server.registerTool(
      name,
      {
        title,
        description,
        inputSchema: strict,
        outputSchema: z.object(outputSchema),
        annotations: { title, ...READ_ONLY },
      },
      // biome-ignore lint/suspicious/noExplicitAny: the SDK types a callback by its own schema generics.
      (async (input: any, extra: any) => {
        let waits = 0;
        const token = extra?._meta?.progressToken;
        const client = clientFor((message) => {
          waits += 1;
          if (token === undefined) return;
          void extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: waits, message },
            })
            .catch(() => {});
        });
        try {
          return await run(input, { client, questions, handedOver });
        } catch (error) {
          return failure(problemInWords(error, input?.campaignId));
        }
      }) as never,
    );
  };

  for (const definition of TOOLS) tool(definition as ToolDefinition);
  return (name, argument) => refusal(name, [argument], argumentsOf.get(name) ?? []);
}
