import type { HadirClient } from '@hadir/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CampaignQuestions } from './campaign-questions.ts';

/** Respondents a tool's answer carries: the ids of their rows, and ids it names as removed. */
export interface HandedOver {
  rowIds: string[];
  removalIds: string[];
}

/**
 * What a tool reads with: the data API through the SDK, and the key's questions remembered; and
 * whom to tell which respondents its answer hands over (the hosted endpoint records them).
 */
export interface ToolReads {
  client: HadirClient;
  questions: CampaignQuestions;
  handedOver: (campaignId: string, handed: HandedOver) => void;
}

/**
 * One read-only tool, defined once for both servers (hadir-mcp and the hosted endpoint): its
 * name, words for the agent, arguments, and what it answers.
 */
export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  /** What it answers: its structured content, with the same JSON as text beside it. */
  outputSchema: z.ZodRawShape;
  run(input: z.infer<z.ZodObject<Shape>>, reads: ToolReads): Promise<CallToolResult>;
}

/** A tool, typed by its arguments' schema. */
export function defineTool<Shape extends z.ZodRawShape>(
  definition: ToolDefinition<Shape>,
): ToolDefinition<Shape> {
  return definition;
}

/** The arguments several tools share. */
export const campaignId = z
  .string()
  .min(1)
  .describe('The campaign\'s id, as list_campaigns gives it (e.g. "pernikahan-rina-bayu").');

export const since = z
  .string()
  .datetime({ offset: true })
  .optional()
  .describe(
    'Only what changed strictly after this instant (ISO 8601, e.g. 2026-11-01T00:00:00Z). Leave it out for everything.',
  );

export const cursor = z
  .string()
  .optional()
  .describe(
    'The nextCursor of the previous answer, to get the next page. It carries that call\'s "since" and page size.',
  );
