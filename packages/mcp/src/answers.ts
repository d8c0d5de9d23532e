import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The most characters one answer holds (about ten thousand tokens): what an agent's context can
 * take beside everything else. Longer answers are cut, with a note saying how to get the rest.
 */
export const MAX_ANSWER_CHARS = 40_000;

/** A long text answer value is cut to this, marked, so one row cannot fill an answer. */
export const MAX_VALUE_CHARS = 2_000;

export function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 1) }] };
}

export function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function fits(value: unknown): boolean {
  return JSON.stringify(value, null, 1).length <= MAX_ANSWER_CHARS;
}

/**
 * As many of `items` as fit beside `rest` in one answer, in order, and a note of how many were
 * left out (and `more`: how to reach them) when not all did.
 */
export function fitted<T>(
  items: readonly T[],
  rest: (shown: readonly T[]) => Record<string, unknown>,
  more: string,
): Record<string, unknown> {
  let shown = items.length;
  while (shown > 0 && !fits(rest(items.slice(0, shown)))) shown = Math.floor(shown * 0.8);
  const kept = items.slice(0, shown);
  return shown === items.length
    ? rest(kept)
    : {
        ...rest(kept),
        note: `${items.length - shown} of ${items.length} left out to keep this answer short: ${more}`,
      };
}

/** A value as an answer shows it: a long text cut, marked as cut. */
export function shortened(value: string | string[]): string | string[] {
  const cut = (text: string) =>
    text.length <= MAX_VALUE_CHARS
      ? text
      : `${text.slice(0, MAX_VALUE_CHARS)}… (cut: ${text.length} characters in all)`;
  return Array.isArray(value) ? value.map(cut) : cut(value);
}
