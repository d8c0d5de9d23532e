import { type Static, Type } from 'typebox';

export const MAX_PAGE_LIMIT = 200;
/** The largest page number accepted: far past any campaign, and still a 32-bit integer. */
export const MAX_PAGE = 2_147_483_647;

/** `page` of a paged list: no schema default, so a handler can tell it from none (see cursor). */
export const PageParam = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE,
    description: '1-based page number in decimal digits; default 1.',
  }),
);

/** `limit` of a paged list, 1 to MAX_PAGE_LIMIT; its default is applied by readPageQuery. */
export const limitParam = (fallback: number, what: string) =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_LIMIT,
      default: fallback,
      description: `${what} per page in decimal digits, 1 to ${MAX_PAGE_LIMIT}; default ${fallback}, or with a cursor the cursor's.`,
    }),
  );

/** `cursor` of a keyset-paged list: the previous page's `meta.nextCursor`. */
export const CursorParam = Type.Optional(
  Type.String({
    minLength: 1,
    // A filtered list's cursor carries its filters (at most MAX_NARROWING_BYTES of them).
    maxLength: 4096,
    description:
      'meta.nextCursor of the previous page: the items strictly after it, in the same order. Instead of page. A cursor is signed and carries the since and limit of the request that returned it, so it may be sent alone; a since or limit sent beside it must be those, and a cursor of another list or campaign is refused, each with 400.',
  }),
);

/** Spec, Page metadata, plus `nextCursor` (an addition within v1: keyset paging that edits cannot skip). */
export const PageMetaSchema = Type.Object(
  {
    total: Type.Integer({
      minimum: 0,
      description: 'Rows matching this request (since included).',
    }),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT }),
    totalPages: Type.Integer({
      minimum: 0,
      description:
        'R2: page until page >= totalPages, read fresh from every response; a short page is not the last.',
    }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description:
        'Pass as cursor= for the rows after this page (keyset: edits cannot make it skip a row); null on the last page.',
    }),
  },
  { title: 'PageMeta', additionalProperties: false },
);

export type PageMeta = Static<typeof PageMetaSchema>;
