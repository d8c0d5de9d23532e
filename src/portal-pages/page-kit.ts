import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { PortalService, SessionPrincipal } from '../portal/portal.service.ts';
import type { BrowserCookies } from './browser-session.ts';
import type { Csrf } from './csrf.ts';
import type { SafeHtml } from './html.ts';
import { type PageContext, PORTAL_PATH } from './layout.ts';
import { LANGUAGES, type Language, MESSAGES } from './messages.ts';

/** What every page route works with: the portal's services and the browser's side of them. */
export interface PageKit {
  portal: PortalService;
  cookies: BrowserCookies;
  csrf: Csrf;
  clock: Clock;
  /** Where holders reach the service, from the configuration (never from a request header). */
  publicUrl: () => string;
  devMailPath?: string;
  /** The language, CSRF token and holder a page is rendered with. */
  context(
    request: FastifyRequest,
    reply: FastifyReply,
    here: string,
    holder?: SessionPrincipal,
  ): PageContext;
  /**
   * The signed-in holder, or undefined once the browser was sent to sign in (or, while a
   * password change is due, to the password page).
   */
  holder(
    request: FastifyRequest,
    reply: FastifyReply,
    options?: { allowedBeforePasswordChange?: boolean },
  ): Promise<SessionPrincipal | undefined>;
  send(reply: FastifyReply, status: number, page: SafeHtml): FastifyReply;
  /** A page for a refused request: the refusal's status and headers (Retry-After on a 429). */
  refuse(reply: FastifyReply, error: unknown, page: SafeHtml): FastifyReply;
}

const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

export function createPageKit(parts: {
  portal: PortalService;
  cookies: BrowserCookies;
  csrf: Csrf;
  clock: Clock;
  publicUrl: () => string;
  devMailPath?: string;
}): PageKit {
  const { portal, cookies, csrf } = parts;
  return {
    ...parts,

    context(request, reply, here, holder) {
      const chosen = cookies.language(request);
      const negotiated = request.language([...LANGUAGES]);
      const language: Language = isLanguage(chosen)
        ? chosen
        : isLanguage(negotiated)
          ? negotiated
          : 'id';
      return {
        language,
        t: MESSAGES[language],
        // A request refused before the cookie plugin ran has no cookies, and needs no form.
        csrfToken: request.cookies ? csrf.token(request, reply) : '',
        here,
        ...(holder ? { holder: { email: holder.email, limited: holder.mustChangePassword } } : {}),
        ...(parts.devMailPath ? { devMailPath: parts.devMailPath } : {}),
      };
    },

    async holder(request, reply, options = {}) {
      const principal = await cookies.holder(request, portal);
      if (!principal) {
        reply.redirect(`${PORTAL_PATH}/sign-in`, 303);
        return undefined;
      }
      if (principal.mustChangePassword && !options.allowedBeforePasswordChange) {
        reply.redirect(`${PORTAL_PATH}/password`, 303);
        return undefined;
      }
      return principal;
    },

    send(reply, status, page) {
      return reply.code(status).type('text/html; charset=utf-8').send(page.text);
    },

    refuse(reply, error, page) {
      if (!(error instanceof ApiError)) throw error;
      reply.headers(error.headers);
      return this.send(reply, error.status, page);
    },
  };
}
