import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import {
  FILES_AT_ONCE_PER_HOLDER,
  type GuestListFormat,
  type GuestLists,
  guestListFileName,
  HolderBusy,
} from '../guest-list/guest-list.ts';
import { clientOf } from '../portal/portal.routes.ts';
import { PORTAL_PATH } from './layout.ts';
import type { PageKit } from './page-kit.ts';
import { notFoundPage, problemPage } from './pages/account.ts';
import { GUEST_LISTS_PATH, guestListsPage } from './pages/guest-lists.ts';
import { keyPath } from './pages/keys.ts';

const CONTENT_TYPES: Record<GuestListFormat, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * The guest-list page an organiser lands on, and the downloads it and the key pages offer: a signed-in holder's own key, one campaign it reads,
 * as a file written while it is read. A refusal before the first byte is a page in words.
 */
export function registerGuestListRoutes(
  pages: FastifyInstance,
  kit: PageKit,
  guestLists: GuestLists,
): void {
  /**
   * Where a signed-in holder lands: the guest lists, when any key of theirs reads a campaign now
   * (an organiser's first need); the keys otherwise (a developer's, or an account still waiting
   * for its scope).
   */
  pages.get('/', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const lists = await kit.portal.guestLists(principal);
    return reply.redirect(lists.length > 0 ? GUEST_LISTS_PATH : `${PORTAL_PATH}/keys`, 303);
  });

  pages.get('/guest-lists', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const context = kit.context(request, reply, GUEST_LISTS_PATH, principal);
    const lists = await kit.portal.guestLists(principal);
    return kit.send(reply, 200, guestListsPage(context, lists, kit.clock.now()));
  });

  for (const format of ['xlsx', 'csv'] as const) {
    pages.get(`/keys/:id/campaigns/:campaignId/guest-list.${format}`, async (request, reply) => {
      const principal = await kit.holder(request, reply);
      if (!principal) return reply;
      const { id: keyId, campaignId } = request.params as { id: string; campaignId: string };
      const context = kit.context(request, reply, keyPath(keyId), principal);
      const { t } = context;
      let list: Awaited<ReturnType<GuestLists['open']>>;
      try {
        list = await guestLists.open({
          accountId: principal.accountId,
          address: clientOf(request).address,
          keyId,
          campaignId,
          format,
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'not_found') return kit.refuse(reply, error, notFoundPage(context));
        const text =
          error instanceof HolderBusy
            ? t.guestLists.downloadBusy(FILES_AT_ONCE_PER_HOLDER)
            : error.code === 'rate_limited'
              ? t.guestLists.downloadRateLimited(
                  t.duration(Number(error.headers['retry-after'] ?? 60)),
                )
              : t.guestLists.downloadForbidden;
        return kit.refuse(
          reply,
          error,
          problemPage(context, t.guestLists.downloadRefusedTitle, text),
        );
      }
      const name = guestListFileName(list.campaign, kit.clock.now(), format);
      const body = new PassThrough();
      reply
        .code(200)
        .type(CONTENT_TYPES[format])
        .header('content-disposition', `attachment; filename="${name}"`);
      let rows = 0;
      const counted = (written: number) => {
        rows = written;
      };
      // The download is counted and audited before its last byte leaves: a holder who has the
      // whole file finds it in the usage and the audit log.
      const finish = (complete: boolean) =>
        list
          .finish({ rows, complete })
          .catch((error: unknown) =>
            request.log.error({ err: error }, 'guest list download not counted'),
          );
      void list.write(t.guestLists.headings, body, counted).then(
        async () => {
          await finish(true);
          body.end();
        },
        async (error: unknown) => {
          // Past the headers an error can only cut the file short; it is logged, never shown.
          if (!body.destroyed) request.log.error({ err: error }, 'guest list cut short');
          body.destroy();
          await finish(false);
        },
      );
      return reply.send(body);
    });
  }
}
