/** `meta` of a page of either list but what depends on its items (nextCursor, until). */
export interface PageMetaCore {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

/** Spec, Page metadata: `totalPages` from the total and the page size (0 for no items). */
export function pageMeta(total: number, query: { page: number; limit: number }): PageMetaCore {
  return {
    total,
    page: query.page,
    limit: query.limit,
    totalPages: Math.ceil(total / query.limit),
  };
}
