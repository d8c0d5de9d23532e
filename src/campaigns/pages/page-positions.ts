import { LRUCache } from 'lru-cache';
import type { PositionFormat } from '../../paging/page-cursor.ts';

/** A place in the spec order (submittedAt, id): rows strictly after it come next. */
export interface Position {
  submittedAt: number;
  id: string;
}

/** How a respondents cursor holds its position. */
export const RESPONDENT_POSITIONS: PositionFormat<Position> = {
  list: 'respondents',
  toPair: (position) => [position.submittedAt, position.id],
  fromPair: (submittedAt, id) => ({ submittedAt, id }),
};

/**
 * Where pages end, remembered per (campaign version, since, limit), so that page N is read by
 * keyset from the end of page N-1 instead of by OFFSET. Any write to a campaign bumps its version,
 * which starts a fresh entry: a remembered position is never used against changed data.
 */
export interface PageContext {
  readonly key: string;
  /** Matching rows for this (version, since); filled on first use. */
  total?: number;
  /** Last row of page n, for the pages seen so far. */
  readonly pageEnds: Map<number, Position>;
}

const MAX_REMEMBERED_POSITIONS = 500_000;

export class PagePositions {
  readonly #contexts = new LRUCache<string, PageContext>({
    maxSize: MAX_REMEMBERED_POSITIONS,
    sizeCalculation: (context) => context.pageEnds.size + 1,
  });

  context(
    campaignId: string,
    version: number,
    sinceMs: number | undefined,
    limit: number,
  ): PageContext {
    const key = `${campaignId}\u0000${version}\u0000${sinceMs ?? ''}\u0000${limit}`;
    let context = this.#contexts.get(key);
    if (!context) {
      context = { key, pageEnds: new Map() };
      this.#contexts.set(key, context);
    }
    return context;
  }

  /** Records page ends and re-weighs the entry so the cache stays within its bound. */
  remember(context: PageContext, ends: Iterable<[number, Position]>): void {
    for (const [page, position] of ends) context.pageEnds.set(page, position);
    this.#contexts.set(context.key, context);
  }
}

/** The nearest page at or before `page` whose end is known (0 = the start of the rows). */
export function nearestKnownEnd(
  pageEnds: ReadonlyMap<number, Position>,
  page: number,
): { page: number; after: Position | null } {
  let best = 0;
  let after: Position | null = null;
  for (const [known, position] of pageEnds) {
    if (known <= page && known > best) {
      best = known;
      after = position;
    }
  }
  return { page: best, after };
}
