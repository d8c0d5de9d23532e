import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The most characters one answer holds (about ten thousand tokens): what an agent's context can
 * take beside everything else. Longer answers are cut, with a note saying how to get the rest.
 */
export const MAX_ANSWER_CHARS = 40_000;

/** A long text answer value is cut to this, marked, so one row cannot fill an answer. */
export const MAX_VALUE_CHARS = 2_000;

// Compact JSON: indentation would be a third of an answer's tokens.
const textOf = (value: unknown) => JSON.stringify(value);

/**
 * An answer of the tools: its structured content (checked against the tool's outputSchema), and
 * the same JSON as text for clients that read only text. The tools keep their answers within
 * MAX_ANSWER_CHARS by themselves; should one not, it is refused here rather than sent whole.
 */
export function answer(value: Record<string, unknown>): CallToolResult {
  const text = textOf(value);
  if (text.length > MAX_ANSWER_CHARS) {
    return failure(
      `The answer would be ${text.length} characters, more than the ${MAX_ANSWER_CHARS} one answer may hold: ask for less (a smaller limit, or one campaign).`,
    );
  }
  return { content: [{ type: 'text', text }], structuredContent: value };
}

export function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export function fits(value: unknown): boolean {
  return textOf(value).length <= MAX_ANSWER_CHARS;
}

/** How many of the first `count` items fit (at least 1 when there is any), by halving. */
export function fittingCount(count: number, body: (shown: number) => unknown): number {
  let low = Math.min(1, count);
  let high = count;
  if (fits(body(high))) return high;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (fits(body(middle))) low = middle;
    else high = middle;
  }
  return low;
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

/** A value as an answer shows it: a long text cut to `limit`, marked as cut. */
export function shortened(value: string | string[], limit = MAX_VALUE_CHARS): string | string[] {
  const cut = (text: string) =>
    text.length <= limit
      ? text
      : `${text.slice(0, limit)}… (cut: ${text.length} characters in all)`;
  return Array.isArray(value) ? value.map(cut) : cut(value);
}

/** The most rows of `count` that fit one answer, with long answers cut shorter if need be. */
export function shortest<Body>(
  count: number,
  bodyOf: (shown: number, valueLimit?: number) => Body,
): Body {
  const shown = fittingCount(count, bodyOf);
  for (const valueLimit of [undefined, 500, 100]) {
    const body = bodyOf(shown, valueLimit);
    if (fits(body)) return body;
  }
  return bodyOf(shown, 20);
}
